//! PDQ's scheduling header (PDQ Section 3.1): what a sender tells the switches on its path about
//! its flow, and what they answer. Every PDQ packet carries one, data, probes and ACKs alike; the
//! receiver copies the data packet's header into its ACK, so the switches' answer reaches the
//! sender one RTT later.
//!
//! The simulator keeps the header's values exact (rates in bytes/s, times in picoseconds). The
//! byte-level codec is `incast_wire::pdq`; [`SchedulingHeader::to_wire`] is the one conversion
//! into it, and it is lossy: the wire's fields quantize and saturate, so its bytes are for a
//! packet capture to show, never for the simulation to read back.

use incast_wire::pdq::{encode_rate, Repr, INTER_PROBE_MAX, MAX_DEADLINE, MAX_SWITCH_ID};

use crate::rate::Rate;
use crate::time::{Duration, Instant};

/// The identity a switch writes into `pause_by`: in incast, the egress port's number, since each
/// port keeps its own flow list (a switch's ports are independent schedulers of their links).
pub type SwitchId = u32;

/// Bytes the scheduling header adds to a packet on the wire. The paper's field widths are not at
/// hand (docs/pdq.md): incast counts 4 bytes each for the rate, pause-by, deadline and expected
/// transmission time, 2 for the RTT and 2 for the inter-probing time and flags, laid out as
/// `incast_wire::pdq` lays them.
pub const PDQ_HEADER_BYTES: u32 = 20;

/// Thousandths of an RTT: the unit of the inter-probing time I (PDQ Section 3.3.3, Suppressed
/// Probing: "X = 0.2" RTTs per flow ahead), kept integer so that headers compare exactly.
pub type PerMilleRtt = u32;

/// The scheduling header <R_H, P_H, D_H, T_H, RTT_H, I_H> and the packet's role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedulingHeader {
    /// R_H: the rate the sender may use. The sender writes its maximum rate (its NIC's); each
    /// switch lowers it to what it accepts, or sets 0 when it pauses the flow.
    pub rate: Rate,
    /// P_H: the switch that paused the flow (`None` while it may send). The sender copies the
    /// value it last heard, so that the other switches on the path leave the flow to that one.
    pub pause_by: Option<SwitchId>,
    /// D_H: the flow's absolute deadline, `None` without one (less critical than any deadline).
    pub deadline: Option<Instant>,
    /// T_H: the flow's expected remaining transmission time, its bytes left over its maximum
    /// rate: the shortest-job-first key.
    pub expected_time: Duration,
    /// RTT_H: the sender's RTT estimate (zero before its first sample).
    pub rtt: Duration,
    /// I_H: how long a paused sender waits between probes, in thousandths of an RTT.
    pub inter_probe: PerMilleRtt,
    /// A header-only packet (the SYN, a probe, the FIN): its ACK answers the header and
    /// acknowledges no data, so the sender never counts it as a duplicate.
    pub probe: bool,
    /// The flow's first packet (the SYN): header-only.
    pub syn: bool,
    /// The flow's last packet (its FIN, or the TERM of Early Termination): the switches forget
    /// the flow.
    pub fin: bool,
}

/// Picoseconds in a nanosecond, the wire's unit of T_H.
const PS_PER_NS: u64 = Duration::from_ns(1).as_ps();
/// Picoseconds in a microsecond, the wire's unit of D_H and RTT_H.
const PS_PER_US: u64 = Duration::from_us(1).as_ps();

impl SchedulingHeader {
    /// The header in its wire form (`incast_wire::pdq`), for packet capture only: every field
    /// quantizes to the wire's unit and saturates at its largest value, so the conversion loses
    /// what the 20 bytes cannot hold and is never read back.
    ///
    /// - R_H: whole 1000 bytes/s, truncated, a positive rate at least 1
    ///   ([`encode_rate`]: 0 stays "paused").
    /// - P_H: the switch id as it is; `u32::MAX`, which no port has and the wire reserves for
    ///   "none", is written as [`MAX_SWITCH_ID`].
    /// - D_H: the absolute deadline as whole microseconds since the start of the simulation
    ///   (the wire's time origin), truncated, saturating at [`MAX_DEADLINE`] (71.6 minutes).
    /// - T_H: nanoseconds, rounded up so that time left never shows as none, saturating at
    ///   `u32::MAX` (4.29 s): a flow of unknown size, whose T is infinite, shows as the maximum.
    /// - RTT_H: microseconds, rounded up so that a sample never shows as "no sample" (0),
    ///   saturating at 65.535 ms.
    /// - I_H: thousandths of an RTT as they are, saturating at [`INTER_PROBE_MAX`] (8.191 RTTs).
    /// - The probe, SYN and FIN flags as they are.
    pub fn to_wire(&self) -> Repr {
        Repr {
            rate: encode_rate(self.rate),
            pause_by: self.pause_by.map(|id| id.min(MAX_SWITCH_ID)),
            deadline: self.deadline.map(|at| saturate(at.as_ps() / PS_PER_US, MAX_DEADLINE)),
            expected_time: saturate(self.expected_time.as_ps().div_ceil(PS_PER_NS), u32::MAX),
            rtt: saturate(self.rtt.as_ps().div_ceil(PS_PER_US), u16::MAX),
            inter_probe: saturate(u64::from(self.inter_probe), INTER_PROBE_MAX),
            probe: self.probe,
            syn: self.syn,
            fin: self.fin,
        }
    }
}

/// `value` as a field of type `T`, or `max` if it is larger.
fn saturate<T: TryFrom<u64> + Into<u64> + Copy>(value: u64, max: T) -> T {
    if value >= max.into() {
        max
    } else {
        T::try_from(value).unwrap_or(max)
    }
}

/// The order of criticality (PDQ Section 3.3.1: earliest deadline first, then shortest expected
/// transmission time, then the smaller flow id), as a sortable key: smaller is more critical.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Criticality {
    deadline: Instant,
    expected_time: Duration,
    flow: u32,
}

impl Criticality {
    /// The key of `flow` with the header's deadline and expected transmission time; a flow
    /// without a deadline sorts after every flow with one.
    pub fn of(flow: u32, header: &SchedulingHeader) -> Criticality {
        Criticality { deadline: header.deadline.unwrap_or(Instant::NEVER), expected_time: header.expected_time, flow }
    }

    /// T, the expected remaining transmission time in the key.
    pub fn expected_time(&self) -> Duration {
        self.expected_time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(deadline_us: Option<u64>, expected_us: u64) -> SchedulingHeader {
        SchedulingHeader {
            deadline: deadline_us.map(|d| Instant::ZERO + Duration::from_us(d)),
            expected_time: Duration::from_us(expected_us),
            ..SchedulingHeader::default()
        }
    }

    #[test]
    fn header_bytes_match_the_wire_codec() {
        assert_eq!(PDQ_HEADER_BYTES as usize, incast_wire::pdq::HEADER_LEN);
    }

    #[test]
    fn to_wire_quantizes_each_field_to_its_unit() {
        let h = SchedulingHeader {
            rate: 125_000_999, // 1 Gbps and 999 B/s: truncated
            pause_by: Some(3),
            deadline: Some(Instant::from_ps(20_000_999_999)), // 20 ms and just under 1 us: truncated
            expected_time: Duration::from_ps(800_000_001), // 800 us and 1 ps: rounded up
            rtt: Duration::from_ps(299_000_001), // 299 us and 1 ps: rounded up
            inter_probe: 600,
            probe: true,
            syn: false,
            fin: true,
        };
        assert_eq!(
            h.to_wire(),
            Repr {
                rate: 125_000,
                pause_by: Some(3),
                deadline: Some(20_000),
                expected_time: 800_001,
                rtt: 300,
                inter_probe: 600,
                probe: true,
                syn: false,
                fin: true,
            }
        );
    }

    #[test]
    fn to_wire_keeps_zero_and_nonzero_apart() {
        let h = SchedulingHeader { rate: 1, rtt: Duration::from_ps(1), expected_time: Duration::from_ps(1), ..SchedulingHeader::default() };
        let repr = h.to_wire();
        assert_eq!((repr.rate, repr.rtt, repr.expected_time), (1, 1, 1), "a slow flow is not paused, a sample is a sample");
        let zero = SchedulingHeader::default().to_wire();
        assert_eq!((zero.rate, zero.rtt, zero.expected_time, zero.pause_by, zero.deadline), (0, 0, 0, None, None));
    }

    #[test]
    fn to_wire_saturates_every_field() {
        let h = SchedulingHeader {
            rate: Rate::MAX,
            pause_by: Some(SwitchId::MAX),
            deadline: Some(Instant::NEVER),
            expected_time: Duration::MAX, // a flow of unknown size
            rtt: Duration::from_ms(70),
            inter_probe: 40_000, // 0.2 RTT x 200 flows ahead
            ..SchedulingHeader::default()
        };
        let repr = h.to_wire();
        assert_eq!(repr.validate(), Ok(()), "saturation never writes a reserved value");
        assert_eq!(repr.rate, u32::MAX);
        assert_eq!(repr.pause_by, Some(MAX_SWITCH_ID));
        assert_eq!(repr.deadline, Some(MAX_DEADLINE));
        assert_eq!(repr.expected_time, u32::MAX);
        assert_eq!(repr.rtt, u16::MAX);
        assert_eq!(repr.inter_probe, INTER_PROBE_MAX);
        // Exactly at each maximum, the value is written as it is.
        let h = SchedulingHeader {
            deadline: Some(Instant::ZERO + Duration::from_us(u64::from(MAX_DEADLINE))),
            expected_time: Duration::from_ns(u64::from(u32::MAX)),
            rtt: Duration::from_us(u64::from(u16::MAX)),
            inter_probe: PerMilleRtt::from(INTER_PROBE_MAX),
            ..SchedulingHeader::default()
        };
        let repr = h.to_wire();
        assert_eq!((repr.deadline, repr.expected_time, repr.rtt, repr.inter_probe), (Some(MAX_DEADLINE), u32::MAX, u16::MAX, INTER_PROBE_MAX));
    }

    #[test]
    fn earliest_deadline_first_then_shortest_job_then_flow_id() {
        let earlier_deadline = Criticality::of(9, &header(Some(100), 500));
        let later_deadline = Criticality::of(1, &header(Some(200), 1));
        let no_deadline = Criticality::of(0, &header(None, 1));
        assert!(earlier_deadline < later_deadline, "EDF over SJF");
        assert!(later_deadline < no_deadline, "any deadline beats none");
        assert!(Criticality::of(5, &header(None, 10)) < Criticality::of(4, &header(None, 20)), "SJF without deadlines");
        assert!(Criticality::of(4, &header(None, 10)) < Criticality::of(5, &header(None, 10)), "then the flow id");
    }
}
