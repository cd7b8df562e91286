//! The end of a run turned into what it returns (`RunResults`): one record per flow from the
//! flows' state, one per port from the network's counters, the summary, and what the observers
//! recorded.

use incast_proto::time::{Duration, Instant};

use crate::capture::Capture;
use crate::deadline::{self, Tally};
use crate::error::{reserve, ResourceError};
use crate::flow::Flow;
use crate::ids::{FlowId, PortId};
use crate::network::Network;
use crate::observe::Observers;
use crate::outcome::Outcome;
use crate::results::{FlowRecord, PortRecord, RunResults, RunStatus, Stall, Summary};
use crate::packet::RouteCursor;
use crate::scenario::TransportSpec;

/// How the run went, as the event loop knows it at the end.
pub(crate) struct RunEnd<'a> {
    /// Where simulated time stopped.
    pub(crate) now: Instant,
    pub(crate) events: u64,
    pub(crate) wall: std::time::Duration,
    /// Flows of the run, whether their rows were taken during it or not.
    pub(crate) flows: u64,
    pub(crate) flows_completed: u64,
    pub(crate) stopped_at_horizon: bool,
    /// How the run ended, and why if it stalled.
    pub(crate) status: RunStatus,
    pub(crate) stall: Option<Stall>,
    /// Packets still queued or on a wire.
    pub(crate) packets_in_network: u64,
    pub(crate) transport: &'a TransportSpec,
    /// The summary's counts over every flow's row.
    pub(crate) tally: RecordTally,
    /// What the ports' processors counted, by name (`transport::port_counters`).
    pub(crate) port_counters: Vec<(&'static str, u64)>,
}

/// What the summary counts over the flow table's rows, kept as the rows are made: rows taken
/// during the run (`Simulation::take_flow_records`) count as those returned at its end do.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RecordTally {
    /// Rows of flows that arrived in the measurement window.
    measured: u64,
    /// Deadlines are judged over the measured flows only, as the flow-time statistics are.
    deadlines: Tally,
    /// Timeouts over every flow.
    timeouts: u64,
}

impl RecordTally {
    /// Counts one row.
    pub(crate) fn add(&mut self, r: &FlowRecord) {
        if r.measured {
            self.measured += 1;
            self.deadlines.add(r.deadline_s.is_some(), r.met_deadline);
        }
        self.timeouts += u64::from(r.timeouts);
    }
}

/// The results of a run that ended as `end` says, with `net` as it left it and the flow table's
/// `records` (those not taken during the run).
pub(crate) fn results(end: &RunEnd<'_>, net: &Network, records: Vec<FlowRecord>, observers: Observers) -> Result<RunResults, ResourceError> {
    let mut ports: Vec<PortRecord> = Vec::new();
    reserve(&mut ports, net.ports.len(), "the port records")?;
    ports.extend((0..net.ports.len() as u32).map(|p| net.port_record(PortId(p), end.now)));
    let deadlines = end.tally.deadlines;
    let Observers { counters, sampling, capture, traces, offer_log, .. } = observers;
    let summary = Summary {
        events: end.events,
        sim_time_s: end.now.as_secs_f64(),
        wall_time_s: end.wall.as_secs_f64(),
        flows: end.flows,
        flows_measured: end.tally.measured,
        flows_completed: end.flows_completed,
        deadline_flows: deadlines.judged,
        deadline_unknown: deadlines.unknown,
        app_throughput: deadlines.app_throughput(),
        packets_sent: counters.sent,
        packets_delivered: counters.delivered,
        packets_dropped: ports.iter().map(|p| p.drops).sum(),
        packets_in_network: end.packets_in_network,
        packet_hops: counters.hops,
        ecn_marked: ports.iter().map(|p| p.ecn_marks).sum(),
        ecn_marked_dropped: ports.iter().map(|p| p.ecn_marks_dropped).sum(),
        ecn_marked_control: ports.iter().map(|p| p.ecn_marks_control).sum(),
        ecn_remarked: ports.iter().map(|p| p.ecn_remarks).sum(),
        max_queue_bytes: net.max_switch_queue_bytes(),
        timeouts: end.tally.timeouts,
        port_counters: end.port_counters.clone(),
        transport: serde_json::Value::Object(crate::scenario::effective_transport(end.transport)).to_string(),
        stopped_at_horizon: end.stopped_at_horizon,
        status: end.status,
        stall: end.stall.clone(),
    };
    let (queues, throughput) = match sampling {
        Some(s) => (s.queues, s.throughput),
        None => (Vec::new(), None),
    };
    Ok(RunResults { flows: records, summary, queues, throughput, ports, capture: capture.map(Capture::finish), traces: traces.map(|t| t.series),
                    offer_log: offer_log.map(|log| log.finish(net.topo.port_names())) })
}

/// Flow `id`'s ideal completion time (`crate::ideal`): alone on the idle network along its own
/// route, with its transport's headers and handshake (`transport::Plugin::ideal`); `None` for a
/// long-lived flow.
fn ideal_fct_of(net: &Network, id: FlowId, f: &Flow) -> Option<Duration> {
    let size = f.plan.size_bytes?;
    let links = |r: RouteCursor| {
        net.routes[r.start as usize..r.start as usize + r.len as usize].iter().map(|p| &net.ports[p.idx()].info.link)
    };
    // A later message of a persistent connection rides the connection its first one opened.
    let opens = f.span.is_none_or(|s| s.carrier == id);
    let packets = net.setups.ideal(f.protocol, opens);
    Some(crate::ideal::ideal_fct(links(f.forward), links(f.reverse), size, packets.mss, packets.header_bytes, packets.handshake))
}

/// Flow `id`'s row of the flow table at `now` (the end of the run, or any time after the flow
/// ended: its row no longer changes then), with its `outcome`, on `net`, and whether it
/// started in the measurement window.
pub(crate) fn flow_record(
    id: FlowId,
    f: &Flow,
    outcome: Outcome,
    net: &Network,
    now: Instant,
    measured: bool,
) -> FlowRecord {
    let ideal = ideal_fct_of(net, id, f);
    let due = f.due();
    let met_deadline = deadline::met_deadline(due, f.finished_at, f.abandoned(), now);
    FlowRecord {
        flow_id: id.0,
        src: f.plan.src,
        dst: f.plan.dst,
        size_bytes: f.plan.size_bytes,
        start_s: f.started_at.unwrap_or(f.plan.start).as_secs_f64(),
        finish_s: f.finished_at.map(Instant::as_secs_f64),
        deadline_s: due.map(Instant::as_secs_f64),
        met_deadline,
        delivered_bytes: outcome.delivered_bytes,
        retransmitted_bytes: outcome.retransmitted_bytes,
        timeouts: outcome.timeouts,
        lateness_s: match (f.finished_at, due) {
            (Some(done), Some(due)) => Some(done.as_secs_f64() - due.as_secs_f64()),
            _ => None,
        },
        quenched: outcome.quenched,
        time_at_base_rate_s: outcome.time_at_base_rate.as_secs_f64(),
        max_stall_s: (f.started_at.is_some() && f.span.is_none()).then(|| f.stalls.longest_at(now).as_secs_f64()),
        workload: f.plan.workload,
        round: f.plan.round,
        protocol: f.protocol.name(),
        priority: f.plan.priority,
        app: f.plan.app,
        background: f.plan.background,
        ideal_fct_s: ideal.map(Duration::as_secs_f64),
        slowdown: match (f.started_at, f.finished_at, ideal) {
            (Some(start), Some(done), Some(ideal)) if ideal.as_ps() > 0 => {
                Some(done.saturating_since(start).as_ps() as f64 / ideal.as_ps() as f64)
            }
            _ => None,
        },
        measured,
    }
}
