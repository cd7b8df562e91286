//! Homa's packets (Montazeri et al., SIGCOMM 2018, Figure 3 "Homa packet types") as incast's
//! segments carry them: a DATA packet is a data segment (its bytes of the message are the
//! segment's), the receiver's GRANT and RESEND and the ns-3 port's ACK ride as pure ACKs back to
//! the sender, the sender's BUSY as a header-only data segment. What the segment fields cannot say
//! is [`HomaHeader`].

/// Bytes of headers on a DATA packet: IPv4 (20), UDP (8) and Homa's data header (30), as
/// HomaSimulation packs them (`HomaPkt::headerSize`), so that a full packet of a 1500 B MTU
/// carries [`MAX_PAYLOAD`] bytes of the message.
pub const DATA_HEADER_BYTES: u32 = 58;
/// Message bytes a full DATA packet carries: HomaSimulation's `maxDataBytesPerPkt` (1500 - 20 -
/// 8 - 30), the unit of its W5 sizes (`DCTCP_MsgSizeDist.txt` counts packets of 1442 B).
pub const MAX_PAYLOAD: u32 = 1442;
/// A control packet (GRANT, RESEND, BUSY, ACK) on the wire: the 46 B of the smallest Ethernet
/// payload, which IPv4, UDP and Homa's few control fields fit in (HomaSimulation's
/// `HomaPkt::getBytesOnWire` pads to `MIN_ETHERNET_PAYLOAD_BYTES`).
pub const CONTROL_BYTES: u32 = 46;

/// What a Homa packet is, beyond the segment that carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomaHeader {
    /// DATA, sender to receiver: the segment's bytes of a message of `message_bytes`, at
    /// priority level `priority`. The message's length rides in every DATA packet, so that
    /// whichever arrives first tells the receiver how much to expect (Figure 3).
    Data {
        /// The whole message's length.
        message_bytes: u64,
        /// The level the packet rides in (0 first).
        priority: u8,
    },
    /// GRANT, receiver to sender: the sender may send the message's bytes below `offset`, the
    /// scheduled ones at level `priority` (Section 3.3).
    Grant {
        /// Bytes granted from the message's start.
        offset: u64,
        /// The level of the granted scheduled packets.
        priority: u8,
    },
    /// RESEND, receiver to sender: send bytes `[start, start + len)` again, at level
    /// `priority` (Section 3.7).
    Resend {
        /// First byte to send again.
        start: u64,
        /// How many.
        len: u32,
        /// The level to send them at.
        priority: u8,
    },
    /// BUSY, sender to receiver: the answer to a RESEND will be late, because the sender is
    /// busy with higher-priority messages; it keeps the receiver from timing out (Section 3.7).
    Busy,
    /// ACK, receiver to sender: the whole message arrived. The ns-3 port's (`HomaHeader::ACK`);
    /// the paper has none (a response acknowledges a request, Section 3.7), nor does incast by
    /// default.
    Ack,
}

impl HomaHeader {
    /// The priority level the packet rides in: a DATA packet's own; control packets the highest
    /// (HomaSimulation's `InboundMessage::prepareGrant` sets 0; the ns-3 port sends GRANT,
    /// RESEND, BUSY and ACK with TOS 0).
    pub fn priority(&self) -> u8 {
        match *self {
            HomaHeader::Data { priority, .. } => priority,
            _ => 0,
        }
    }
}
