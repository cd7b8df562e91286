//! PDQ's scheduling header (PDQ Section 3.1): what a sender tells the switches on its path about
//! its flow, and what they answer. Every PDQ packet carries one, data, probes and ACKs alike; the
//! receiver copies the data packet's header into its ACK, so the switches' answer reaches the
//! sender one RTT later.

use crate::rate::Rate;
use crate::time::{Duration, Instant};

/// The identity a switch writes into `pause_by`: in incast, the egress port's number, since each
/// port keeps its own flow list (a switch's ports are independent schedulers of their links).
pub type SwitchId = u32;

/// Bytes the scheduling header adds to a packet on the wire. The paper's field widths are not at
/// hand (docs/pdq.md): incast counts 4 bytes each for the rate, pause-by, deadline and expected
/// transmission time, 2 for the RTT and 2 for the inter-probing time and flags.
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
