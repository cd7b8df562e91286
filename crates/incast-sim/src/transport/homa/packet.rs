//! A Homa packet as the engine carries it (docs/homa.md): Homa's header, the strict-priority
//! class it rides in, and the sender's SRPT rank for its host's NIC.

use incast_proto::homa::HomaHeader;

use crate::transport::WireHeader;

/// A Homa packet as the engine carries it: Homa's header, the class it rides in (its level, or 0
/// when `[homa] strip_priorities`), and, for its host's NIC, the bytes of its message not sent
/// before it (the sender's SRPT order; not on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HomaPacket {
    pub(crate) header: HomaHeader,
    pub(crate) class: u8,
    pub(crate) left: u64,
}

impl WireHeader for HomaPacket {
    /// Homa's fields are inside the segment's headers (58 B on a DATA packet, a 46 B control
    /// packet).
    fn wire_bytes(&self) -> u32 {
        0
    }

    fn priority(&self) -> Option<u8> {
        Some(self.class)
    }
}

