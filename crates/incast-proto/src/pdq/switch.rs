//! PDQ's scheduler at one switch egress port (PDQ Section 3.3, Algorithms 1 to 3): a list of the
//! most critical flows through the link, each with the rate and pause state the port last saw
//! confirmed, from which every data packet or probe is accepted at a rate or paused.
//!
//! ```text
//!  data/probe ─► on_data (Algorithm 1) ─┬─ paused by another switch: forget the flow
//!                                       ├─ not in the list and not critical enough: pause
//!                                       └─ W = min(Availbw, R_H) > 0 ? accept at W : pause
//!  ACK (same flow, reverse path) ─► on_ack (Algorithm 3): R_i, P_i from the header; I_H
//!  every 2 RTT: C = max(0, r - q / 2RTT) (Section 3.3.2, the rate controller)
//! ```
//!
//! Availbw (Algorithm 2) is the capacity C less the rates of the flows ahead, except that up to K
//! RTTs' worth of flows ahead about to finish are not counted (Early Start, Section 3.3.3), so
//! the next flow starts while they drain. The rate controller's queue term drains what Early
//! Start overbooks.
//!
//! Where incast departs from or adds to the paper (docs/pdq.md): the list holds at most
//! `max_flows` flows, and a flow that finds it full of more critical flows is paused (the paper
//! sizes it 2κ from the sending flows and gives the others RCP's fair share, which incast does not
//! model); the rate controller runs when a packet arrives and 2 RTTs have passed, rather than on a
//! timer, which changes nothing a packet can see.

use super::header::{Criticality, PerMilleRtt, SchedulingHeader, SwitchId};
use crate::rate::{rate_of, Rate};
use crate::time::{Duration, Instant};

/// What a port needs to schedule PDQ flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchConfig {
    /// The identity written into `pause_by`.
    pub id: SwitchId,
    /// r_PDQ, the link's rate for PDQ traffic (all of it: a PDQ port carries no other flows).
    pub link_rate: Rate,
    /// K of Early Start: flows ahead that will finish within this many RTTs, up to this many
    /// RTTs of them in all, do not count against the capacity (PDQ: K = 2).
    pub early_start_rtts: u32,
    /// X of Suppressed Probing: the i-th flow of the list probes at most every X x i RTTs, in
    /// thousandths of an RTT (PDQ: X = 0.2, so 200).
    pub probe_spacing: PerMilleRtt,
    /// Dampening: after accepting a paused flow, the port accepts no other paused flow for this
    /// long.
    pub dampening: Duration,
    /// The most flows the list holds.
    pub max_flows: usize,
}

/// One flow the port schedules: <R_i, P_i, D_i, T_i, RTT_i>.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    /// D_i and T_i, with the flow id as the last tie-break.
    key: Criticality,
    flow: u32,
    rtt: Duration,
    /// R_i: what this port accepted, then what the ACK confirmed the whole path accepted (0
    /// while paused).
    rate: Rate,
    /// P_i, the switch that paused the flow as last seen here.
    pause_by: Option<SwitchId>,
}

/// What the port did with a data packet or probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Another switch paused the flow: this one forgot it and left the header alone.
    PausedElsewhere,
    /// Accepted at this rate (written into R_H, P_H cleared).
    Accepted(Rate),
    /// Paused here (R_H = 0, P_H = this port).
    Paused,
    /// A FIN or TERM: the flow left the list.
    Released,
}

/// Counters of one port's scheduler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchStats {
    /// Packets accepted at a rate.
    pub accepted: u64,
    /// Packets paused here, for any reason.
    pub paused: u64,
    /// Of those, paused only by Dampening.
    pub dampened: u64,
    /// Of those, paused because the list was full of more critical flows.
    pub list_full: u64,
}

/// The PDQ scheduler of one egress port.
#[derive(Clone, Debug)]
pub struct PdqSwitch {
    config: SwitchConfig,
    /// The flows, most critical first.
    flows: Vec<Entry>,
    /// C, the capacity the port hands out.
    capacity: Rate,
    /// When the rate controller next runs.
    next_control_at: Instant,
    /// When the port last accepted a paused flow (Dampening).
    accepted_paused_at: Option<Instant>,
    stats: SwitchStats,
}

impl PdqSwitch {
    /// A port with an empty list, handing out its whole link.
    pub fn new(config: SwitchConfig) -> PdqSwitch {
        PdqSwitch {
            config,
            flows: Vec::new(),
            capacity: config.link_rate,
            next_control_at: Instant::ZERO,
            accepted_paused_at: None,
            stats: SwitchStats::default(),
        }
    }

    /// Algorithm 1: a data packet or probe of `flow` leaves through this port with `header`,
    /// and `queue_bytes` are queued here. Rewrites R_H and P_H and says what it decided.
    pub fn on_data(&mut self, now: Instant, flow: u32, header: &mut SchedulingHeader, queue_bytes: u64) -> Decision {
        self.control_rate(now, queue_bytes);
        if header.fin {
            self.remove(flow);
            return Decision::Released;
        }
        let me = self.config.id;
        if header.pause_by.is_some_and(|s| s != me) {
            self.remove(flow);
            return Decision::PausedElsewhere;
        }
        let key = Criticality::of(flow, header);
        let i = match self.position(flow) {
            Some(i) => {
                // Update D_i, T_i and RTT_i; the flow may move in the order.
                let mut entry = self.flows.remove(i);
                entry.key = key;
                entry.rtt = header.rtt;
                self.insert(entry)
            }
            None => {
                let fits = self.flows.len() < self.config.max_flows || self.flows.last().is_some_and(|least| key < least.key);
                if !fits {
                    self.stats.list_full += 1;
                    return self.pause(header, None);
                }
                let i = self.insert(Entry { key, flow, rtt: header.rtt, rate: 0, pause_by: None });
                if self.flows.len() > self.config.max_flows {
                    self.flows.pop();
                }
                i
            }
        };
        let allowed = self.available(i).min(header.rate);
        if allowed == 0 {
            return self.pause(header, Some(i));
        }
        // A paused flow is one whose sender knows it is paused (P_H = this port: its probe), not
        // one whose packets sent before the pause reached it are still arriving: those carry
        // P_H = none, and counting them would keep Dampening on for as long as a preempted
        // flow's packets drain.
        let was_paused = header.pause_by == Some(me);
        if was_paused && self.accepted_paused_at.is_some_and(|t| now < t + self.config.dampening) {
            self.stats.dampened += 1;
            return self.pause(header, Some(i));
        }
        if was_paused {
            self.accepted_paused_at = Some(now);
        }
        // The flow may send at up to `allowed` from now: count it so until its ACK says what
        // the whole path accepted, or a burst of new flows would each find the link free.
        self.flows[i].pause_by = None;
        self.flows[i].rate = allowed;
        header.pause_by = None;
        header.rate = allowed;
        self.stats.accepted += 1;
        Decision::Accepted(allowed)
    }

    /// Algorithm 3: the ACK of a packet of `flow` passes this port's switch on its way back with
    /// `header`, which every switch on the path has now answered. The list takes R_i and P_i from
    /// it (a flow paused by another switch leaves the list), and Suppressed Probing raises I_H to
    /// X times the flow's place in the list.
    pub fn on_ack(&mut self, flow: u32, header: &mut SchedulingHeader) {
        if header.pause_by.is_some_and(|s| s != self.config.id) {
            self.remove(flow);
        }
        if header.pause_by.is_some() {
            header.rate = 0;
        }
        if header.fin {
            return;
        }
        let Some(i) = self.position(flow) else { return };
        let entry = &mut self.flows[i];
        entry.pause_by = header.pause_by;
        entry.rate = header.rate;
        header.inter_probe = header.inter_probe.max(self.config.probe_spacing.saturating_mul(i as u32));
    }

    /// C, the capacity the port hands out now.
    pub fn capacity(&self) -> Rate {
        self.capacity
    }

    /// The flows in the list, most critical first, with R_i and P_i.
    pub fn flows(&self) -> impl Iterator<Item = (u32, Rate, Option<SwitchId>)> + '_ {
        self.flows.iter().map(|e| (e.flow, e.rate, e.pause_by))
    }

    /// Counters so far.
    pub fn stats(&self) -> SwitchStats {
        self.stats
    }

    /// Algorithm 2, Availbw(i): C less the rates of the flows ahead of `i`, with Early Start.
    fn available(&self, i: usize) -> Rate {
        let k = u128::from(self.config.early_start_rtts) * 1000;
        let mut finishing = 0u128; // RTTs of flows ahead about to finish, in thousandths
        let mut allocated: Rate = 0;
        for ahead in &self.flows[..i] {
            let rtts = match ahead.rtt.as_ps() {
                0 => u128::MAX,
                rtt => u128::from(ahead.key.expected_time().as_ps()) * 1000 / u128::from(rtt),
            };
            if rtts < k && finishing < k {
                finishing += rtts;
            } else {
                allocated = allocated.saturating_add(ahead.rate);
            }
            if allocated >= self.capacity {
                return 0;
            }
        }
        self.capacity - allocated
    }

    /// Pauses the flow whose header this is (at list position `i`, if listed).
    fn pause(&mut self, header: &mut SchedulingHeader, i: Option<usize>) -> Decision {
        header.pause_by = Some(self.config.id);
        header.rate = 0;
        if let Some(i) = i {
            self.flows[i].pause_by = Some(self.config.id);
            self.flows[i].rate = 0;
        }
        self.stats.paused += 1;
        Decision::Paused
    }

    /// The rate controller (Section 3.3.2): every 2 RTTs, with RTT the mean of the listed flows'
    /// RTTs, C = max(0, r_PDQ - q / (2 RTT)). Without an RTT yet, C is the link.
    fn control_rate(&mut self, now: Instant, queue_bytes: u64) {
        if now < self.next_control_at {
            return;
        }
        let (sum, known) = self.flows.iter().filter(|e| e.rtt > Duration::ZERO).fold((0u128, 0u128), |(s, n), e| (s + u128::from(e.rtt.as_ps()), n + 1));
        if known == 0 {
            self.capacity = self.config.link_rate;
            return;
        }
        let two_rtt = Duration::from_ps((2 * sum / known).min(u128::from(u64::MAX)) as u64);
        self.capacity = self.config.link_rate.saturating_sub(rate_of(queue_bytes, two_rtt));
        self.next_control_at = now + two_rtt;
    }

    fn position(&self, flow: u32) -> Option<usize> {
        self.flows.iter().position(|e| e.flow == flow)
    }

    /// Inserts `entry` in criticality order and returns its position.
    fn insert(&mut self, entry: Entry) -> usize {
        let i = self.flows.partition_point(|e| e.key < entry.key);
        self.flows.insert(i, entry);
        i
    }

    fn remove(&mut self, flow: u32) {
        if let Some(i) = self.position(flow) {
            self.flows.remove(i);
        }
    }
}

#[cfg(test)]
mod tests;

