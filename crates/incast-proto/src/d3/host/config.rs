//! What a D3 sender is configured with, what it sends and what it reports: the sender's
//! parameters (`D3Config`, the base-rate grant and pacing choices), its packets (`D3Segment`) and
//! its counters (`D3Stats`). The state machine is `super::D3Sender`.

use crate::d3::field::RateField;
use crate::d3::header::{CongestionHeader, D3_HEADER_BYTES};
use crate::d3::rate::{base_rate, HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT};
use crate::rate::{from_bits_per_sec, Rate};
use crate::tcp::{DataSegment, TcpConfig};
use crate::time::{BitsPerSec, Duration};

/// Parameters of one D3 sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D3Config {
    /// Reliability parameters shared with TCP, so that D3 and TCP runs differ only in congestion
    /// control: `min_rto`, `max_rto`, `initial_rto` and `clock_granularity` feed the same RFC
    /// 6298 estimator, `dupack_threshold` the fast retransmit, `receive_window_bytes` the flow
    /// control (Section 5: "flow control"), `delayed_ack` the [`D3Receiver`](super::D3Receiver).
    /// `initial_window_segments` is unused: the allocation, not a window, limits a D3 sender.
    pub tcp: TcpConfig,
    /// The rate the routers count for the base-rate grant; must equal their
    /// `RouterConfig::base_rate`. A flow at the base grant paces what it sends to it: its next
    /// request leaves no earlier than the bytes of this interval's request at this rate after it,
    /// so that paused flows on short-RTT paths ask no more often than the routers budget for.
    /// Default [`base_rate`]`(`[`HEADER_ONLY_PACKET_BYTES`]`, `[`TYPICAL_RTT`]`)` = 206_667 B/s.
    pub base_rate: Rate,
    /// What the flow sends in an interval at the base-rate grant. Default
    /// [`BaseGrant::HeaderOnly`].
    pub base_grant: BaseGrant,
    /// How the header carries the rates the host asks for (rounded up to what the field
    /// carries). Must match the routers'. Default [`RateField::Exact`].
    pub field: RateField,
    /// How an interval's allocation leaves the host. Default [`Pacing::Burst`].
    pub pacing: Pacing,
    /// The host's NIC rate: quenching gives up on a flow that needs more (Section 6.1.3), and a
    /// path without routers is granted it.
    pub uplink_rate: Rate,
    /// `false` runs RCPdc (Section 6.1): no deadline information, every request asks for 0 and
    /// gets the fair share; quenching is then off too, since the host knows no deadline.
    /// Default `true`.
    pub deadline_aware: bool,
    /// Flow quenching (Section 6.1.3): terminate a flow, with a FIN, once its desired rate
    /// exceeds the uplink or its deadline has passed. Default `false`, the plain D3 of
    /// Sections 6.1.1 and 6.1.2.
    pub quench: bool,
    /// Pace requests to the base rate, incast's repair for short-RTT paths: what a flow sends
    /// at the base grant leaves no sooner after the last such packet than its bytes take at
    /// `base_rate`, and a request whose grant cannot yet pay for a segment waits (up to that
    /// spacing) until it can ride on one. Default `false`: as the paper's hosts do, a flow asks
    /// once per RTT, when the feedback to its last request arrives (Section 4.2, "a header-only
    /// packet per RTT"). On the D3 testbed's 500 µs RTT the two are the same; on a 20 µs path
    /// hundreds of paused flows asking every RTT fill a link with 62 B requests.
    pub pace_requests: bool,
}

impl D3Config {
    /// D3 with deadlines, without quenching, on a host whose NIC runs at `uplink`.
    pub fn new(tcp: TcpConfig, uplink: BitsPerSec) -> Self {
        D3Config {
            tcp,
            base_rate: base_rate(HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT),
            base_grant: BaseGrant::HeaderOnly,
            field: RateField::Exact,
            pacing: Pacing::Burst,
            uplink_rate: from_bits_per_sec(uplink),
            deadline_aware: true,
            quench: false,
            pace_requests: false,
        }
    }
}

/// What a flow at the base-rate grant sends in its next RTT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseGrant {
    /// Only a header-only rate request: the flow is paused (D3, Section 4.2: the base rate
    /// "allows them to send a header-only packet per RTT and hence, request rates in the
    /// future").
    HeaderOnly,
    /// One full segment carrying the request (D2TCP, SIGCOMM 2012, Section 4.2.1: "We set D3's
    /// base rate to be one segment per RTT").
    OneSegment,
}

/// How a D3 sender spends an interval's allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// All at once when the feedback arrives, as D3's ACK-clocked stack does (Section 5,
    /// "Discretization overhead": "the sender calculates its new send rate and sends a burst of
    /// packets").
    Burst,
    /// Spread over the interval at the allocated rate (Section 4.1: "The source sends data at
    /// this rate for a RTT"), as RCP's senders pace at their rate.
    Rate,
}

/// A packet from a D3 sender: a data segment, possibly empty, and possibly a rate request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct D3Segment {
    /// The data; `len` is 0 for a header-only packet (the SYN, a paused flow's request, a
    /// re-sent request, a quenching FIN).
    pub data: DataSegment,
    /// The rate request, on the first packet of each interval only.
    pub header: Option<CongestionHeader>,
}

impl D3Segment {
    /// Whether the packet carries no payload.
    pub fn is_header_only(&self) -> bool {
        self.data.len == 0
    }

    /// Size on the wire: TCP/IP headers, payload and, on a rate request, the 22 B congestion
    /// header (Section 5).
    pub fn wire_bytes(&self) -> u32 {
        let header = self.header.map_or(0, |_| D3_HEADER_BYTES);
        self.data.wire_bytes() + header
    }
}

/// Counters of one D3 sender, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct D3Stats {
    /// Payload bytes sent again below the highest offset ever sent.
    pub retransmitted_bytes: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Fast retransmissions (third duplicate ACK).
    pub fast_retransmits: u64,
    /// Packets that carried a rate request: the SYN, one per interval, re-sent requests.
    pub rate_requests: u64,
    /// Requests re-sent because their feedback did not come back within the RTO.
    pub request_timeouts: u64,
    /// Packets without payload (all of them carry a request).
    pub header_only_packets: u64,
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Intervals started by rate feedback.
    pub intervals: u64,
    /// Intervals at the base-rate grant.
    pub paused_intervals: u64,
    /// Time spent in intervals at the base-rate grant that have ended (an interval ends when the
    /// next feedback arrives).
    pub time_at_base_rate: Duration,
}

