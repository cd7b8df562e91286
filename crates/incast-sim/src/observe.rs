//! What watches a run, in the manner of htsim's loggers: packet counters (always on, three
//! additions per packet), and the observers a scenario asks for at build time — queue and
//! throughput sampling, packet capture, per-flow traces and the offer log. The event loop calls
//! an observer only when it is present, so a run without them pays a branch per hook.

use incast_proto::time::{Duration, Instant};

use crate::capture::Capture;
use crate::offer_log::OfferLog;
use crate::error::{reserve, try_vec, Error, ResourceError};
use crate::flow::Flow;
use crate::outcome::Outcome;
use crate::flow_table::FlowTable;
use crate::flow_trace::Traces;
use crate::ids::PortId;
use crate::network::Network;
use crate::port::Port;
use crate::results::{ExtraSeries, ExtraValues, QueueSeries, ThroughputSeries};
use crate::transport::port_sample_columns;
use crate::scenario::Scenario;

/// Packet counters, kept so that sent = delivered + dropped + still in the network (drops and
/// marks are counted per port, `PortCounters`, and summed at the end).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counters {
    pub(crate) sent: u64,
    pub(crate) delivered: u64,
    pub(crate) hops: u64,
}

impl Counters {
    /// Adds `other`'s counts (another engine's, on several threads).
    pub(crate) fn absorb(&mut self, other: &Counters) {
        self.sent += other.sent;
        self.delivered += other.delivered;
        self.hops += other.hops;
    }
}

/// The observers of one run.
pub(crate) struct Observers {
    pub(crate) counters: Counters,
    /// `[output] queue_sample_*`, `flow_throughput_interval`: the sampled series so far.
    pub(crate) sampling: Option<Sampling>,
    /// `[output] capture_ports`: the capture being written.
    pub(crate) capture: Option<Capture>,
    /// `[output] offer_log_ports`: the offer log being written.
    pub(crate) offer_log: Option<OfferLog>,
    /// `[output] trace_flows`, `trace_workloads`: the traced flows' state so far.
    pub(crate) traces: Option<Traces>,
    /// `run.max_samples`: rows a table of samples or traces may hold.
    pub(crate) max_rows: u64,
}

impl Observers {
    /// The observers `scenario` asks for, on `net`.
    pub(crate) fn new(scenario: &Scenario, net: &Network) -> Result<Observers, Error> {
        let capture = match &scenario.output.capture {
            None => None,
            Some(spec) => {
                let mut captured = try_vec(net.ports.len(), false, "the port table")?;
                for p in net.ports_matching(&spec.ports)? {
                    captured[p.idx()] = true;
                }
                Some(Capture::new(captured, spec.max_packets))
            }
        };
        let offer_log = match &scenario.output.offer_log {
            None => None,
            Some(spec) => {
                let mut logged = try_vec(net.ports.len(), false, "the port table")?;
                for p in net.ports_matching(&spec.ports)? {
                    logged[p.idx()] = true;
                }
                Some(OfferLog::new(logged, spec.max_rows))
            }
        };
        Ok(Observers {
            counters: Counters::default(),
            offer_log,
            sampling: Sampling::new(scenario, net)?,
            capture,
            traces: scenario.output.traces.as_ref().map(|t| Traces::new(t, scenario.run.max_samples)),
            max_rows: scenario.run.max_samples,
        })
    }

    /// Traces flows `ids` too (`Simulation::trace_flows`).
    pub(crate) fn trace_flows(&mut self, ids: &[u32]) {
        let max_rows = self.max_rows;
        self.traces.get_or_insert_with(|| Traces::new(&crate::scenario::TraceSpec::default(), max_rows)).add_flows(ids);
    }
}

/// Sampling configuration and what was sampled.
pub(crate) struct Sampling {
    pub(crate) interval: Duration,
    /// Rows left before `run.max_samples`.
    rows_left: u64,
    queue_ports: Vec<PortId>,
    pub(crate) queues: Vec<QueueSeries>,
    throughput_every: Option<u64>,
    pub(crate) throughput: Option<ThroughputSeries>,
    ticks: u64,
}

impl Sampling {
    /// The sampling `scenario`'s `[output]` asks for, if any.
    fn new(scenario: &Scenario, net: &Network) -> Result<Option<Sampling>, Error> {
        let out = &scenario.output;
        let queue = out.queue_samples.as_ref();
        let interval = match (queue.map(|q| q.interval), out.flow_throughput_interval) {
            (None, None) => return Ok(None),
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).expect("one is set"),
        };
        let sampled = queue.map_or(&[][..], |q| &q.host_downlinks[..]);
        let patterns = queue.map_or(&[][..], |q| &q.ports[..]);
        // Ports by host first, in the order given, then pattern by pattern, each pattern's ports
        // in the topology's order; each port once.
        let hosts = net.hosts();
        let mut chosen: Vec<PortId> = Vec::new();
        reserve(&mut chosen, sampled.len(), "the sampled ports")?;
        for &h in sampled {
            debug_assert!(h < hosts, "validation checks output.queue_sample_hosts");
            chosen.push(net.topo.host_downlink(h));
        }
        let by_host = chosen.clone();
        chosen.extend(net.ports_matching(patterns)?.into_iter().filter(|p| !by_host.contains(p)));
        let queues = chosen
            .iter()
            .map(|&port| QueueSeries { port: net.topo.port_name(port), host: net.host_facing(port), ..Default::default() })
            .collect();
        let throughput_every = out.flow_throughput_interval.map(|t| (t.as_ps() / interval.as_ps().max(1)).max(1));
        Ok(Some(Sampling {
            interval,
            rows_left: scenario.run.max_samples,
            queue_ports: chosen,
            queues,
            throughput_every,
            throughput: throughput_every.map(|_| ThroughputSeries::default()),
            ticks: 0,
        }))
    }

    /// The ports whose queues are sampled.
    pub(crate) fn ports(&self) -> &[PortId] {
        &self.queue_ports
    }

    /// Whether the next tick samples flows' throughput (which reads both ends of every flow).
    pub(crate) fn reads_flows_next(&self) -> bool {
        self.throughput_every.is_some_and(|every| self.ticks.is_multiple_of(every))
    }

    /// Records one tick's samples at `now`, within `run.max_samples` rows and the memory there
    /// is, and returns when the next tick is due.
    pub(crate) fn take(&mut self, now: Instant, ports: &[Port], flows: &FlowTable) -> Result<Instant, ResourceError> {
        let t = now.as_secs_f64();
        for (series, &port) in self.queues.iter_mut().zip(&self.queue_ports) {
            take_row(&mut self.rows_left, "output.queue_sample_interval")?;
            let port = &ports[port.idx()];
            push(&mut series.time_s, t)?;
            push(&mut series.queue_bytes, port.queue_bytes())?;
            if let Some(processor) = port.processor.as_ref() {
                let mut row = vec![None; port_sample_columns().len()];
                if processor.sample(&mut row) {
                    if series.processor.is_empty() {
                        series.processor = port_sample_columns().iter().map(ExtraSeries::of).collect();
                    }
                    for (column, value) in series.processor.iter_mut().zip(row) {
                        match &mut column.values {
                            ExtraValues::U64(values) => push(values, value)?,
                            ExtraValues::F64(values) => push(values, value.map(|v| v as f64))?,
                        }
                    }
                }
            }
        }
        let reads_flows = self.reads_flows_next();
        if let Some(tp) = self.throughput.as_mut().filter(|_| reads_flows) {
            // Flows are not released while throughput is sampled (`Simulation::releasing`),
            // so the table holds every flow added.
            for (id, f) in flows.iter() {
                if !samples_throughput_of(f, now) {
                    continue;
                }
                take_row(&mut self.rows_left, "output.flow_throughput_interval")?;
                push(&mut tp.time_s, t)?;
                push(&mut tp.flow_id, id.0)?;
                push(&mut tp.delivered_bytes, outcome_of(flows, f).delivered_bytes)?;
            }
        }
        self.ticks += 1;
        Ok(now + self.interval)
    }
}

/// Whether a throughput sample at `now` has a row for flow `f` (started, and not ended before
/// `now`): the flows it reads, and so the only ones whose ends a run on threads lends the
/// sampling engine (`sim::crew`).
pub(crate) fn samples_throughput_of(f: &Flow, now: Instant) -> bool {
    f.started_at.is_some() && f.finished_at.is_none_or(|done| done >= now)
}

/// The counters of flow `f` of `flows`: a message of a persistent connection reads its share of
/// its connection's.
pub(crate) fn outcome_of(flows: &FlowTable, f: &Flow) -> Outcome {
    match f.span {
        None => f.outcome(),
        Some(span) => {
            let carrier = &flows[span.carrier];
            span.outcome(carrier.receiver.as_ref().map_or(0, |r| r.delivered_bytes()))
        }
    }
}

/// Counts one sample row against `run.max_samples`; `key` is the interval that asked for it.
fn take_row(rows_left: &mut u64, key: &str) -> Result<(), ResourceError> {
    if *rows_left == 0 {
        return Err(ResourceError::new(
            key,
            "the run reached the limit of sample rows (`run.max_samples`; raise it, sample less often, \
             or set run.duration so that the rows can be estimated before the run)",
        ));
    }
    *rows_left -= 1;
    Ok(())
}

/// Appends a sample to its series, or fails if memory runs out.
fn push<T>(series: &mut Vec<T>, value: T) -> Result<(), ResourceError> {
    if series.len() == series.capacity() {
        reserve(series, 1, "a sample series")?;
    }
    series.push(value);
    Ok(())
}
