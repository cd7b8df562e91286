//! What NDP packets carry (htsim's `ndppacket.h`): a data packet's place in its flow, and the
//! receiver's three answers, ACK, NACK and PULL, each a header-sized packet.

/// Bytes of every NDP header: a data packet is its payload and this, a trimmed packet, an ACK,
/// a NACK or a PULL is this alone (htsim's `NdpPacket::ACKSIZE`, `ndppacket.h` line 105;
/// `strip_payload` leaves a packet of this size, line 73).
pub const NDP_HEADER_BYTES: u32 = 64;

/// What an NDP packet carries beyond its sequence number and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NdpHeader {
    /// A data packet (its payload, or none once a switch trimmed it).
    Data {
        /// The flow's last packet (htsim's `_last_packet`, `ndppacket.h` lines 40 and 64): the receiver
        /// learns where the flow ends from it.
        last: bool,
    },
    /// The packet starting at `seq` arrived whole.
    Ack {
        /// The packet acknowledged.
        seq: u64,
        /// Bytes the receiver holds in order.
        cum_ack: u64,
        /// The receiver's PULLs so far, this arrival's included (htsim's `_pull_no`).
        pull_no: u64,
        /// The receiver holds the whole flow: its host lets the flow's waiting PULLs go, as they
        /// would pull nothing (htsim's `release_pulls`, `ndp.cpp` lines 1592-1593 and 1983).
        done: bool,
    },
    /// The packet starting at `seq` arrived trimmed: send it again.
    Nack {
        /// The packet trimmed.
        seq: u64,
        /// Bytes the receiver holds in order.
        cum_ack: u64,
        /// The receiver's PULLs so far, this arrival's included.
        pull_no: u64,
    },
    /// Send one more packet: the receiver's `pull_no`th.
    Pull {
        /// The receiver's PULLs so far; cumulative, so a later PULL stands in for a lost one
        /// (`ndp.cpp` lines 859-861).
        pull_no: u64,
        /// Bytes the receiver holds in order.
        cum_ack: u64,
    },
}
