//! A Homa host's settings: what its sender and receiver state machines need to know, set once
//! for a run (the scenario's `[homa]`, docs/homa.md).

use super::header::{CONTROL_BYTES, DATA_HEADER_BYTES, MAX_PAYLOAD};
use super::priorities::{Priorities, ScheduledLevels};
use crate::time::Duration;

/// When a receiver asks for lost bytes again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResendTimer {
    /// After a message has been silent for the timeout, and again every timeout while it stays
    /// silent: the authors' Linux implementation (PlatformLab/HomaModule, `homa_timer`: RESEND
    /// once an RPC has had no packet for `resend_ticks`, then every `resend_interval` ticks).
    /// A message whose packets keep arriving, however slowly, is never asked again.
    Silence,
    /// Every timeout from a message's first packet, whatever arrived meanwhile: the ns-3 port's
    /// (`HomaRecvScheduler::ExpireRtxTimeout`, rescheduled each `InbndRtxTimeout`), which asks
    /// again for every byte granted before the previous tick that has not arrived, so that
    /// packets still queued in the network are sent twice.
    Periodic,
}

/// A Homa host's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HomaConfig {
    /// Message bytes in a full DATA packet.
    pub max_payload: u32,
    /// Header bytes of a DATA packet.
    pub data_header_bytes: u32,
    /// Bytes of a control packet on the wire.
    pub control_bytes: u32,
    /// RTTbytes: what a sender sends of each message before any grant, and what a receiver
    /// keeps granted beyond the bytes it has received (Sections 3.2 and 3.3).
    pub rtt_bytes: u64,
    /// The priority levels and their division.
    pub priorities: Priorities,
    /// The most messages a receiver grants at once (Section 3.5's degree of overcommitment).
    pub overcommitment: u32,
    /// How long a silent message waits before its receiver asks again.
    pub resend_timeout: Duration,
    /// When a receiver asks again.
    pub resend_timer: ResendTimer,
    /// Whether a receiver acknowledges a complete message (the ns-3 port's ACK). Without, the
    /// sender learns of delivery as a response would tell it (`HomaSender::handle_delivered`).
    pub ack: bool,
}

impl HomaConfig {
    /// The paper's Homa on a network whose RTTbytes is `rtt_bytes`, with `priorities`: the
    /// degree of overcommitment equal to the scheduled levels (HomaSimulation's configurations
    /// set `numSendersToKeepGranted` to `adaptiveSchedPrioLevels` for every workload), a RESEND
    /// after 5 ms of silence (HomaModule's `resend_ticks` = `resend_interval` = 5 one-millisecond
    /// ticks), no ACK.
    pub fn paper(rtt_bytes: u64, priorities: Priorities) -> HomaConfig {
        HomaConfig {
            max_payload: MAX_PAYLOAD,
            data_header_bytes: DATA_HEADER_BYTES,
            control_bytes: CONTROL_BYTES,
            rtt_bytes,
            priorities,
            overcommitment: u32::from(priorities.scheduled_levels()),
            resend_timeout: Duration::from_ms(5),
            resend_timer: ResendTimer::Silence,
            ack: false,
        }
    }

    /// Bytes a sender sends of a message of `bytes` before any grant.
    pub fn unscheduled(&self, bytes: u64) -> u64 {
        bytes.min(self.rtt_bytes)
    }
}

impl Default for HomaConfig {
    /// The paper's Homa with RTTbytes of 9,328 B (HomaSimulation's `defaultReqBytes` 1442 B and
    /// `defaultUnschedBytes` 7886 B) and 8 levels, 1 of them unscheduled: for tests.
    fn default() -> HomaConfig {
        let priorities = Priorities::new(8, 1, &[], ScheduledLevels::Lowest).expect("8 levels, 1 unscheduled");
        HomaConfig::paper(9_328, priorities)
    }
}
