//! pFabric's header (pFabric Section 4.1): a data packet's priority, its flow's remaining bytes;
//! an ACK's SACK blocks.

use incast_proto::tcp::SackBlocks;

use crate::transport::WireHeader;

/// What a pFabric packet carries beyond TCP's segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PfabricHeader {
    /// A data packet's priority: the flow's bytes the receiver had not reported holding when it
    /// was sent (saturating at `u32::MAX`, so a long-lived flow is the least urgent). Smaller
    /// is more urgent.
    Data {
        /// The priority.
        rank: u32,
    },
    /// An ACK's SACK blocks; an ACK is the most urgent packet (priority 0).
    Ack(SackBlocks),
}

impl PfabricHeader {
    /// The priority a port orders the packet by: a data packet's rank, 0 for an ACK.
    pub(crate) fn rank(header: Option<&PfabricHeader>) -> u32 {
        match header {
            Some(PfabricHeader::Data { rank }) => *rank,
            _ => 0,
        }
    }
}

/// The priority rides in header bits the packet has anyway (pFabric Section 4.1); SACK blocks
/// in TCP's header, which the ACK counts already.
impl WireHeader for PfabricHeader {
    fn wire_bytes(&self) -> u32 {
        0
    }
}
