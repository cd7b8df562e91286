//! The simulation: one value that owns the network, the flows and the event queue, and advances
//! them event by event. Each port has at most two pending events (serialization done, next arrival
//! at the far end of its link) and each flow at most one live timer, so the heap grows with
//! components, not with packets.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use incast_proto::d3::{RateField, D3_HEADER_BYTES};
use incast_proto::tcp::{AckSegment, DataSegment, SackBlocks};
use incast_proto::time::{BitsPerSec, Duration, Instant};

use crate::capture::{Capture, D3Header, Frame};
use crate::connection::Connection;
use crate::event::{Event, EventQueue};
use crate::d3_port::D3Port;
use crate::deadline::{self, Tally};
use crate::error::{reserve, try_vec, Error, ResourceError};
use crate::flow::{d3_field, Flow, Outcome, Setup, Stalls, Transport};
use crate::flow_trace::{TraceState, Traces};
use crate::ids::{FlowId, PacketId, PortId};
use crate::inversions::PriorityInversions;
use crate::packet::{Ext, Packet, PacketArena, PacketKind, RouteCursor};
use crate::port::{Admission, Arriving, BufferLimit, EcnThreshold, Port, SharedPool};
use crate::processor::PortProcessor;
use crate::results::{FlowRecord, PortRecord, QueueSeries, RateCounters, RunResults, Summary, ThroughputSeries};
use crate::routing::{mix, Router};
use crate::scenario::{BufferSpec, EcnSpec, Protocol, Scenario, ScenarioError, TransportSpec};
use crate::topology::{NodeKind, Topology};
use crate::workload::{plan, Burst, FlowPlan};

/// Entries a flow's two routes may add to the route table (a fat-tree route has six hops).
const MAX_ROUTE_HOPS: usize = 16;

/// A full-size frame: a host NIC always holds at least one.
const FULL_FRAME_BYTES: u64 = 1500;

/// How much a host lets its transports queue at its NIC, as time at line rate. Beyond it, senders
/// wait for the NIC to drain (backpressure) instead of piling data into an unbounded host queue,
/// as Linux's TCP Small Queues bound a flow's qdisc backlog to about 1 ms of data. Without it a
/// window grown while the NIC was the bottleneck would sit in the host queue and later burst into
/// the network at line rate long after the window was cut.
const HOST_BACKLOG: Duration = Duration::from_ms(1);

/// Where a running simulation is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Simulated time reached, seconds.
    pub sim_time_s: f64,
    /// Simulated time at which the run will stop, if known.
    pub end_time_s: Option<f64>,
    /// Events processed so far.
    pub events: u64,
    /// Flows completed so far.
    pub flows_completed: u64,
    /// Flows in the scenario.
    pub flows_total: u64,
}

/// Which endpoints of a flow `pump` polls for output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ends {
    Sender,
    Receiver,
    Both,
}

/// Packet counters, kept so that sent = delivered + dropped + still in the network (drops and
/// marks are counted per port, `PortCounters`, and summed at the end).
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    sent: u64,
    delivered: u64,
    hops: u64,
}

/// Sampling configuration and what was sampled.
struct Sampling {
    interval: Duration,
    /// Rows left before `run.max_samples`.
    rows_left: u64,
    queue_ports: Vec<PortId>,
    queues: Vec<QueueSeries>,
    throughput_every: Option<u64>,
    throughput: Option<ThroughputSeries>,
    ticks: u64,
}

/// A simulation in progress. Build it with [`Simulation::new`], advance it with
/// [`Simulation::step`] until that returns true, then take the results with
/// [`Simulation::finish`].
pub struct Simulation {
    now: Instant,
    events: EventQueue,
    event_count: u64,
    topo: Topology,
    ports: Vec<Port>,
    pools: Vec<SharedPool>,
    packets: PacketArena,
    routes: Vec<PortId>,
    router: Router,
    flows: Vec<Flow>,
    transport: TransportSpec,
    /// How D3's header carries rates, for hosts and routers alike.
    d3_field: RateField,
    starts: BinaryHeap<Reverse<(Instant, u32)>>,
    starts_event_at: Option<Instant>,
    processor_timer_at: Vec<Option<Instant>>,
    /// Per host: bytes its NIC may hold before senders wait, and the flows waiting (FIFO, so
    /// flows of one host share the NIC round-robin).
    host_backlog_bytes: Vec<u64>,
    blocked: Vec<std::collections::VecDeque<FlowId>>,
    /// The host whose NIC a port is, for each port (`u32::MAX` for switch ports).
    host_of_port: Vec<u32>,
    /// Strict-priority classes of every switch port.
    priority_classes: u8,
    /// Round generators of flow-burst workloads, indexed by workload.
    bursts: Vec<Option<Burst>>,
    end: Option<Instant>,
    /// `[run] horizon`: no event after it is processed.
    horizon: Instant,
    /// The run stopped at the horizon with work left.
    stopped_at_horizon: bool,
    /// Why the run stopped early, reported by the `step` that stopped it.
    failure: Option<ResourceError>,
    /// `[run] stop_after_finite_flows`: end once every finite flow is done, long flows or not.
    stop_after_finite_flows: bool,
    finite_remaining: u64,
    completed: u64,
    counters: Counters,
    sampling: Option<Sampling>,
    /// `[output] capture_ports`: the capture being written.
    capture: Option<Capture>,
    /// `[output] trace_flows`, `trace_workloads`: the traced flows' state so far.
    traces: Option<Traces>,
    /// D3 priority inversions, measured when D3 routers are installed.
    inversions: Option<PriorityInversions>,
    /// Carrier flow of each persistent connection, by (src, dst, protocol).
    connections: HashMap<(u32, u32, Protocol), FlowId>,
    wall: std::time::Duration,
    done: bool,
}

impl Simulation {
    /// Builds the network and workload of `scenario`. Fails with [`Error::Scenario`] for what
    /// the scenario's checks could not see (a hand-built [`Scenario`]), with [`Error::Resource`]
    /// when memory runs out or the workloads draw more than `run.max_flows` flows.
    pub fn new(scenario: &Scenario) -> Result<Simulation, Error> {
        let topo = Topology::build(&scenario.topology)?;
        let classes = scenario.switch.priority_classes.max(1);
        let mut pools = Vec::new();
        let mut pool_of_switch = try_vec(topo.switches as usize, None, "the switch table")?;
        let mut ports = Vec::new();
        reserve(&mut ports, topo.ports.len(), "the port table")?;
        for info in &topo.ports {
            let (limit, ecn) = match topo.nodes[info.node.idx()].kind {
                NodeKind::Host(_) => (BufferLimit::Unlimited, EcnThreshold::NEVER),
                NodeKind::Switch { tier, index } => {
                    let spec = if tier == 0 { scenario.switch.buffer } else { scenario.switch.core_buffer.unwrap_or(scenario.switch.buffer) };
                    let limit = match spec {
                        BufferSpec::PerPort { bytes } => BufferLimit::DropTail(bytes),
                        BufferSpec::PerPortPackets { packets } => BufferLimit::DropTailPackets(packets),
                        BufferSpec::Shared { bytes, alpha } => {
                            let pool = *pool_of_switch[index as usize].get_or_insert_with(|| {
                                pools.push(SharedPool { capacity: bytes, used: 0 });
                                pools.len() as u32 - 1
                            });
                            BufferLimit::Shared { pool, alpha }
                        }
                    };
                    (limit, ecn_threshold(scenario.switch.ecn, info.link.rate))
                }
            };
            ports.push(Port::new(*info, limit, ecn, classes));
        }

        let plan = plan(&scenario.workloads, scenario.seed, scenario.run.max_flows)?;
        let hosts = topo.hosts.len() as u32;
        let mut host_backlog_bytes = try_vec(hosts as usize, 0, "the host table")?;
        for (h, backlog) in host_backlog_bytes.iter_mut().enumerate() {
            let rate = topo.ports[topo.host_nic(h as u32).idx()].link.rate;
            *backlog = ((rate.0 as f64 / 8.0 * HOST_BACKLOG.as_secs_f64()) as u64).max(FULL_FRAME_BYTES);
        }
        let mut host_of_port = try_vec(topo.ports.len(), u32::MAX, "the port table")?;
        for (p, host) in host_of_port.iter_mut().enumerate() {
            if let NodeKind::Host(h) = topo.nodes[topo.ports[p].node.idx()].kind {
                *host = h;
            }
        }
        let sampling = build_sampling(scenario, &topo, hosts)?;
        let processor_timer_at = try_vec(ports.len(), None, "the port table")?;
        let blocked = try_vec(hosts as usize, std::collections::VecDeque::new(), "the host table")?;
        let mut flows = Vec::new();
        reserve(&mut flows, plan.flows.len(), "the flow table")?;
        let mut starts = BinaryHeap::new();
        starts.try_reserve(plan.flows.len()).map_err(|_| ResourceError::allocation::<(Instant, u32)>("the flow starts", plan.flows.len()))?;
        let fastest_host_link = (0..hosts).map(|h| topo.ports[topo.host_nic(h).idx()].link.rate).max().unwrap_or(BitsPerSec::GBPS);
        let capture = match &scenario.output.capture {
            None => None,
            Some(spec) => {
                let mut captured = try_vec(topo.ports.len(), false, "the port table")?;
                for p in ports_matching(&topo, &spec.ports, "output.capture_ports")? {
                    captured[p.idx()] = true;
                }
                // D3's rate bytes at the scale the hosts' rate field uses (`d3_field`).
                Some(Capture::new(captured, spec.max_packets, incast_wire::d3::scale_for(fastest_host_link.0 / 8)))
            }
        };
        let mut sim = Simulation {
            now: Instant::ZERO,
            events: EventQueue::default(),
            event_count: 0,
            processor_timer_at,
            topo,
            ports,
            pools,
            packets: PacketArena::default(),
            routes: Vec::new(),
            router: Router::new(scenario.seed),
            flows,
            transport: scenario.transport.clone(),
            d3_field: d3_field(&scenario.transport, fastest_host_link),
            starts,
            starts_event_at: None,
            host_backlog_bytes,
            blocked,
            host_of_port,
            priority_classes: classes,
            bursts: plan.bursts,
            end: scenario.run.duration.map(|d| Instant::ZERO + d),
            horizon: Instant::ZERO + scenario.run.horizon,
            stopped_at_horizon: false,
            failure: None,
            stop_after_finite_flows: scenario.run.stop_after_finite_flows,
            finite_remaining: 0,
            completed: 0,
            counters: Counters::default(),
            sampling,
            capture,
            traces: scenario.output.traces.as_ref().map(|t| Traces::new(t, scenario.run.max_samples)),
            inversions: None,
            connections: HashMap::new(),
            wall: std::time::Duration::ZERO,
            done: false,
        };
        for f in &plan.flows {
            sim.add_flow(f)?;
        }
        if sim.flows.iter().any(|f| f.protocol.is_explicit_rate()) {
            sim.install_d3_routers();
        }
        sim.schedule_starts();
        if sim.sampling.is_some() {
            sim.events.push(Instant::ZERO, Event::Sample);
        }
        Ok(sim)
    }

    /// Egress ports of switches, where in-network processors may be attached.
    pub fn switch_ports(&self) -> Vec<PortId> {
        (0..self.ports.len() as u32)
            .map(PortId)
            .filter(|p| !self.topo.is_host(self.ports[p.idx()].info.node))
            .collect()
    }

    /// The switch port that transmits towards `host`, if the host exists.
    pub fn host_downlink(&self, host: u32) -> Option<PortId> {
        ((host as usize) < self.topo.hosts.len()).then(|| self.topo.host_downlink(host))
    }

    /// D3 and RCPdc need an allocator at every switch egress port (D3 Section 4.3).
    fn install_d3_routers(&mut self) {
        let field = self.d3_field;
        self.inversions = Some(PriorityInversions::default());
        for port in self.switch_ports() {
            let view = self.ports[port.idx()].view();
            self.attach_processor(port, Box::new(D3Port::new(&self.transport.d3, &view, field)));
        }
    }

    /// Installs a header processor at a switch egress port (before the run starts).
    pub fn attach_processor(&mut self, port: PortId, processor: Box<dyn PortProcessor>) {
        assert!(self.event_count == 0, "processors are attached before the run starts");
        if let Some(t) = processor.poll_timeout() {
            self.processor_timer_at[port.idx()] = Some(t);
            self.events.push(t, Event::ProcessorTimer(port));
        }
        self.ports[port.idx()].processor = Some(processor);
    }

    /// Processes at most `max_events` events; returns true once the run is over. Fails, and
    /// stays over, when the run needs more memory than it can get or records more than
    /// `run.max_samples` samples.
    pub fn step(&mut self, max_events: u64) -> Result<bool, ResourceError> {
        let wall_start = std::time::Instant::now();
        let mut budget = max_events;
        let limit = self.end.unwrap_or(Instant::NEVER).min(self.horizon);
        while !self.done && budget > 0 {
            let Some((t, event)) = self.events.pop_until(limit) else {
                // Nothing left before the end: the run is over at `end`, or now if it had none.
                // Events left past a horizon that comes first are work the run could not finish:
                // it stops at the horizon, and says so.
                let horizon_first = limit == self.horizon && self.end.is_none_or(|end| end > self.horizon);
                self.stopped_at_horizon = horizon_first && !self.events.is_empty();
                self.now = if self.stopped_at_horizon { self.horizon } else { self.end.map_or(self.now, |end| end.min(self.horizon)) };
                self.done = true;
                break;
            };
            self.now = t;
            self.event_count += 1;
            budget -= 1;
            self.dispatch(event);
            if self.finite_remaining == 0 && self.starts.is_empty() && (self.has_no_long_flows() || self.stop_after_finite_flows) {
                self.done = true;
            }
        }
        self.wall += wall_start.elapsed();
        match self.failure.take() {
            Some(e) => Err(e),
            None => Ok(self.done),
        }
    }

    /// Where the run is.
    pub fn progress(&self) -> Progress {
        Progress {
            sim_time_s: self.now.as_secs_f64(),
            end_time_s: self.end.map(Instant::as_secs_f64),
            events: self.event_count,
            flows_completed: self.completed,
            flows_total: self.flows.len() as u64,
        }
    }

    /// Ends the run and returns its results; fails only if memory runs out for the flow table.
    pub fn finish(self) -> Result<RunResults, ResourceError> {
        let mut deadlines = Tally::default();
        let mut timeouts = 0u64;
        let mut flows: Vec<FlowRecord> = Vec::new();
        reserve(&mut flows, self.flows.len(), "the flow records")?;
        flows.extend(self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let outcome = outcome_of(&self.flows, f);
                let (retransmitted_bytes, flow_timeouts) = (outcome.retransmitted_bytes, outcome.timeouts);
                timeouts += u64::from(flow_timeouts);
                let due = f.due();
                let met_deadline = deadline::met_deadline(due, f.finished_at, f.abandoned(), self.now);
                deadlines.add(due.is_some(), met_deadline);
                FlowRecord {
                    flow_id: i as u32,
                    src: f.plan.src,
                    dst: f.plan.dst,
                    size_bytes: f.plan.size_bytes,
                    start_s: f.started_at.unwrap_or(f.plan.start).as_secs_f64(),
                    finish_s: f.finished_at.map(Instant::as_secs_f64),
                    deadline_s: due.map(Instant::as_secs_f64),
                    met_deadline,
                    delivered_bytes: outcome.delivered_bytes,
                    retransmitted_bytes,
                    timeouts: flow_timeouts,
                    lateness_s: match (f.finished_at, due) {
                        (Some(done), Some(due)) => Some(done.as_secs_f64() - due.as_secs_f64()),
                        _ => None,
                    },
                    quenched: outcome.quenched,
                    time_at_base_rate_s: outcome.time_at_base_rate.as_secs_f64(),
                    max_stall_s: (f.started_at.is_some() && f.span.is_none())
                        .then(|| f.stalls.longest_at(self.now).as_secs_f64()),
                    workload: f.plan.workload,
                    round: f.plan.round,
                    protocol: protocol_name(f.protocol),
                    priority: f.plan.priority,
                    app: f.plan.app,
                    background: f.plan.background,
                }
            }));
        let max_queue_bytes = self
            .ports
            .iter()
            .filter(|p| !self.topo.is_host(p.info.node))
            .map(|p| p.max_queue_bytes)
            .max()
            .unwrap_or(0);
        let mut ports: Vec<PortRecord> = Vec::new();
        reserve(&mut ports, self.ports.len(), "the port records")?;
        ports.extend(self.ports.iter().enumerate().map(|(i, p)| self.port_record(PortId(i as u32), p)));
        let summary = Summary {
            events: self.event_count,
            sim_time_s: self.now.as_secs_f64(),
            wall_time_s: self.wall.as_secs_f64(),
            flows: self.flows.len() as u64,
            flows_completed: self.completed,
            deadline_flows: deadlines.judged,
            deadline_unknown: deadlines.unknown,
            app_throughput: deadlines.app_throughput(),
            packets_sent: self.counters.sent,
            packets_delivered: self.counters.delivered,
            packets_dropped: ports.iter().map(|p| p.drops).sum(),
            packets_in_network: self.packets.live(),
            packet_hops: self.counters.hops,
            ecn_marked: ports.iter().map(|p| p.ecn_marks).sum(),
            max_queue_bytes,
            timeouts,
            d3_requests: self.inversions.as_ref().map_or(0, |i| i.requests),
            d3_priority_inversions: self.inversions.as_ref().map_or(0, |i| i.inversions),
            transport: serde_json::Value::Object(crate::scenario::effective_transport(&self.transport)).to_string(),
            stopped_at_horizon: self.stopped_at_horizon,
        };
        let (queues, throughput) = match self.sampling {
            Some(s) => (s.queues, s.throughput),
            None => (Vec::new(), None),
        };
        let capture = self.capture.map(Capture::finish);
        let traces = self.traces.map(|t| t.series);
        Ok(RunResults { flows, summary, queues, throughput, ports, capture, traces })
    }

    /// Port `id`'s row of the ports table.
    fn port_record(&self, id: PortId, port: &Port) -> PortRecord {
        let (node, peer) = (&self.topo.nodes[port.info.node.idx()], &self.topo.nodes[port.info.peer.idx()]);
        let c = &port.counters;
        PortRecord {
            port: self.topo.port_name(id),
            node: node.name(),
            peer: peer.name(),
            role: node.role,
            tier: node.level(),
            up: peer.level() > node.level(),
            link_rate_bps: port.info.link.rate.0,
            packets_sent: c.packets_sent,
            bytes_sent: port.bytes_sent,
            drops: c.drops,
            ecn_marks: c.ecn_marks,
            max_queue_bytes: port.max_queue_bytes,
            mean_queue_bytes: c.mean_queue_bytes(self.now, port.queue_bytes()),
        }
    }

    /// Adds a planned flow: checks its hosts, resolves its routes and queues its start.
    fn add_flow(&mut self, f: &FlowPlan) -> Result<(), Error> {
        let hosts = self.topo.hosts.len() as u32;
        let i = self.flows.len();
        for (host, what) in [(f.src, "source"), (f.dst, "destination")] {
            if host >= hosts {
                return Err(Error::Scenario(ScenarioError {
                    path: format!("workload[{}]", f.workload),
                    message: format!("flow {i} has {what} host {host}, but the topology has only {hosts} hosts (0..{})", hosts - 1),
                }));
            }
        }
        if f.src == f.dst {
            return Err(Error::Scenario(ScenarioError {
                path: format!("workload[{}]", f.workload),
                message: format!("flow {i} sends from host {} to itself", f.src),
            }));
        }
        // Room for this flow's entries, so that running out of memory is an error here.
        reserve(&mut self.flows, 1, "the flow table")?;
        reserve(&mut self.routes, 2 * MAX_ROUTE_HOPS, "the route table")?;
        self.starts.try_reserve(1).map_err(|_| ResourceError::allocation::<(Instant, u32)>("the flow starts", self.starts.len() + 1))?;
        let key = mix(i as u64);
        let forward = push_route(&mut self.router, &self.topo, &mut self.routes, f.src, f.dst, key)?;
        let reverse = push_route(&mut self.router, &self.topo, &mut self.routes, f.dst, f.src, key)?;
        let protocol = f.protocol.unwrap_or(self.transport.protocol);
        if f.persistent && protocol.is_explicit_rate() {
            return Err(Error::Scenario(ScenarioError {
                path: format!("workload[{}].connections", f.workload),
                message: format!("\"persistent\" needs a TCP-family protocol, but flow {i} uses {}", protocol_name(protocol)),
            }));
        }
        let mut plan = *f;
        if protocol == Protocol::TcpPr {
            // D3 Section 6.1.1: the deadline picks the strict-priority class.
            let needed = self.transport.tcppr.classes_needed();
            if needed > self.priority_classes {
                return Err(Error::Scenario(ScenarioError {
                    path: "tcppr.thresholds".into(),
                    message: format!(
                        "TCPpr needs {needed} priority classes but switch.priority_classes = {}",
                        self.priority_classes
                    ),
                }));
            }
            plan.priority = self.transport.tcppr.class_of(f.deadline);
        }
        self.starts.push(Reverse((f.start, i as u32)));
        self.finite_remaining += u64::from(f.size_bytes.is_some());
        self.flows.push(Flow {
            plan,
            protocol,
            forward,
            reverse,
            transport: None,
            outcome: None,
            started_at: None,
            finished_at: None,
            deadline_at: None,
            timer_at: None,
            blocked: false,
            span: None,
            connection: None,
            stalls: Stalls::default(),
        });
        Ok(())
    }

    fn has_no_long_flows(&self) -> bool {
        // Long-lived flows require a duration (checked at load), which ends the run instead.
        self.end.is_none()
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::TxDone(port) => self.on_tx_done(port),
            Event::Arrive(port) => self.on_arrive(port),
            Event::FlowTimer(flow) => self.on_flow_timer(flow),
            Event::FlowStarts => self.on_flow_starts(),
            Event::ProcessorTimer(port) => {
                self.on_processor_timer(port);
                self.stop_if_stalled();
            }
            Event::Sample => {
                self.on_sample();
                self.stop_if_stalled();
            }
        }
    }

    /// Periodic events (router timers, sampling) never run out, so a run without a duration
    /// whose remaining flows can no longer act would otherwise never end: nothing on a wire or in
    /// a queue, no flow timer and no flow yet to start means no flow event can ever happen again.
    fn stop_if_stalled(&mut self) {
        let stalled = self.end.is_none()
            && self.starts.is_empty()
            && self.packets.live() == 0
            && self.flows.iter().all(|f| f.timer_at.is_none());
        if stalled {
            self.done = true;
        }
    }

    // ---- flows -------------------------------------------------------------------------------

    fn schedule_starts(&mut self) {
        if let Some(&Reverse((t, _))) = self.starts.peek() {
            if self.starts_event_at.is_none_or(|s| t < s) {
                self.starts_event_at = Some(t);
                self.events.push(t, Event::FlowStarts);
            }
        }
    }

    fn on_flow_starts(&mut self) {
        if self.starts_event_at != Some(self.now) {
            return; // superseded by an earlier start
        }
        self.starts_event_at = None;
        while let Some(&Reverse((t, f))) = self.starts.peek() {
            if t > self.now {
                break;
            }
            self.starts.pop();
            self.start_flow(FlowId(f));
        }
        self.schedule_starts();
    }

    fn start_flow(&mut self, id: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[id.idx()];
        let deadline = flow.plan.deadline.map(|d| now + d);
        flow.started_at = Some(now);
        flow.deadline_at = deadline;
        flow.stalls.since = now;
        if flow.plan.persistent {
            let key = (flow.plan.src, flow.plan.dst, flow.protocol);
            let bytes = flow.plan.size_bytes.expect("messages of persistent connections are sized");
            if let Some(&carrier) = self.connections.get(&key) {
                self.push_message(carrier, id, bytes, deadline);
                return;
            }
            self.connections.insert(key, id);
            let (connection, span) = Connection::open(id, bytes);
            flow.connection = Some(Box::new(connection));
            flow.span = Some(span);
        }
        let uplink = self.topo.ports[self.topo.host_nic(flow.plan.src).idx()].link.rate;
        let setup = Setup { spec: &self.transport, uplink, d3_field: self.d3_field };
        flow.transport = Some(Transport::new(flow.protocol, &setup, &flow.plan, deadline, now));
        self.pump(id, Ends::Sender);
    }

    /// Message `id` of `bytes`, due at `deadline`, starts on the open connection of `carrier`.
    fn push_message(&mut self, carrier: FlowId, id: FlowId, bytes: u64, deadline: Option<Instant>) {
        let now = self.now;
        let c = &mut self.flows[carrier.idx()];
        let span = c.connection.as_mut().expect("carriers keep their connection").push(carrier, id, bytes);
        c.transport.as_mut().expect("carriers keep their transport").push_message(now, bytes, deadline);
        self.flows[id.idx()].span = Some(span);
        self.pump(carrier, Ends::Sender);
    }

    /// Moves whatever the flow's `ends` want to send into their NICs and re-arms its timer. Only
    /// an end that was just handed something can have new output, so the other is not polled.
    fn pump(&mut self, id: FlowId, ends: Ends) {
        if ends != Ends::Receiver {
            self.send_data(id);
        }
        if ends != Ends::Sender {
            self.send_acks(id);
        }
        if self.traces.is_some() {
            self.trace(id);
        }
        self.rearm(id);
    }

    /// Hands the sender's segments to its NIC while the NIC has room (else queues the flow to
    /// wait for it).
    fn send_data(&mut self, id: FlowId) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[id.idx()];
            let nic = self.routes[flow.forward.start as usize];
            let host = flow.plan.src as usize;
            if self.ports[nic.idx()].queue_bytes() >= self.host_backlog_bytes[host] {
                if !flow.blocked {
                    flow.blocked = true;
                    self.blocked[host].push_back(id);
                }
                break;
            }
            let transport = flow.transport.as_mut().expect("pumped flows have started");
            let Some(out) = transport.poll_transmit(now) else { break };
            let (route, priority) = (flow.forward, flow.plan.priority);
            let ext = out.request.map(Ext::Request);
            self.inject(data_packet(id, &out.seg, route, priority, ext.is_some()), ext);
        }
    }

    /// Hands the receiver's ACKs to its NIC.
    fn send_acks(&mut self, id: FlowId) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[id.idx()];
            let transport = flow.transport.as_mut().expect("pumped flows have started");
            let Some(out) = transport.poll_ack(now) else { break };
            let (route, priority) = (flow.reverse, flow.plan.priority);
            // D3's feedback, or the SACK blocks (never both: D3 hosts do not SACK).
            let ext = match out.feedback {
                Some(f) => Some(Ext::Feedback(f)),
                None => (!out.ack.sack.is_empty()).then_some(Ext::Sack(out.ack.sack)),
            };
            self.inject(ack_packet(id, &out.ack, route, priority, ext.as_ref()), ext);
        }
    }

    /// Frees a flow whose both ends are done, or makes sure its next timer has an event.
    fn rearm(&mut self, id: FlowId) {
        let flow = &mut self.flows[id.idx()];
        let transport = flow.transport.as_ref().expect("pumped flows have started");
        if let Some(connection) = flow.connection.as_mut() {
            // A connection waits for its next message rather than retiring.
            if let Some((to, bytes, timeouts)) = connection.charge(&transport.outcome()) {
                let span = self.flows[to.idx()].span.as_mut().expect("messages have a span");
                span.retransmitted_bytes += bytes;
                span.timeouts += timeouts;
            }
            self.arm_timer(id);
            return;
        }
        if transport.sender_complete() {
            if flow.finished_at.is_none() {
                // The sender is done but the receiver never got every byte: the host gave up on
                // the flow (D3 quenching). It ends here for the run, without completing.
                flow.retire();
                self.on_flow_ended(id, false);
                return;
            }
            // Both ends are done: keep the outcome, free the endpoints (a long run holds
            // thousands of finished flows). Late duplicates are counted and discarded.
            flow.retire();
            return;
        }
        self.arm_timer(id);
    }

    /// Makes sure the next timer of a running flow has an event.
    fn arm_timer(&mut self, id: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[id.idx()];
        let transport = flow.transport.as_ref().expect("pumped flows have started");
        if let Some(due) = transport.poll_timeout() {
            // Lazy timers: keep an earlier pending event (it re-arms when it finds nothing due);
            // schedule only when the new deadline is earlier than what is pending.
            let due = due.max(now + Duration::from_ps(1));
            if flow.timer_at.is_none_or(|t| due < t) {
                flow.timer_at = Some(due);
                self.events.push(due, Event::FlowTimer(id));
            }
        }
    }

    fn on_flow_timer(&mut self, id: FlowId) {
        let flow = &mut self.flows[id.idx()];
        if flow.timer_at != Some(self.now) {
            return; // stale: a different timer event is the live one
        }
        flow.timer_at = None;
        let Some(transport) = flow.transport.as_mut() else { return };
        transport.handle_timeout(self.now);
        self.pump(id, Ends::Both);
    }

    /// A finite flow is over: it `completed` (the receiver holds every byte) or was abandoned.
    /// Either way its burst round may move on.
    fn on_flow_ended(&mut self, id: FlowId, completed: bool) {
        self.flows[id.idx()].stalls.close(self.now);
        self.completed += u64::from(completed);
        self.finite_remaining -= 1;
        let workload = self.flows[id.idx()].plan.workload as usize;
        let Some(burst) = self.bursts[workload].as_mut() else { return };
        let mut next = Vec::new();
        if burst.flow_completed(self.now, &mut next) {
            for f in &next {
                match self.add_flow(f) {
                    Ok(()) => {}
                    Err(Error::Resource(e)) => return self.fail(e),
                    Err(Error::Scenario(e)) => unreachable!("round flows reuse the hosts of the first round: {e}"),
                }
            }
            self.schedule_starts();
        }
    }

    // ---- packets -----------------------------------------------------------------------------

    /// A transport hands a packet to its host's NIC.
    fn inject(&mut self, packet: Packet, ext: Option<Ext>) {
        self.counters.sent += 1;
        let id = self.packets.alloc(packet, ext);
        self.enqueue(id);
    }

    /// Offers a packet to the port at its route cursor.
    fn enqueue(&mut self, id: PacketId) {
        let now = self.now;
        let port_id = self.packets.get(id).current_port(&self.routes);
        let port = &mut self.ports[port_id.idx()];
        let view = port.view();
        let mut processed = false;
        if let Some(processor) = port.processor.as_mut() {
            let (packet, request) = self.packets.get_with_request_mut(id);
            let flow = packet.flow;
            let measured = request.is_some();
            processed = processor.on_packet(now, packet, request, &view);
            if measured {
                self.measure_request(port_id, flow, id);
            }
        }
        let port = &mut self.ports[port_id.idx()];
        let pkt = self.packets.get_mut(id);
        let arriving = Arriving { id, wire_bytes: pkt.wire_bytes, priority: pkt.priority, ect: pkt.ect };
        match port.offer(now, arriving, &mut pkt.ce, &mut self.pools) {
            Admission::Dropped => {
                if processed {
                    let request = self.packets.ext(id).and_then(Ext::request);
                    let processor = self.ports[port_id.idx()].processor.as_mut().expect("it processed the packet");
                    processor.on_dropped(now, self.packets.get(id), request);
                }
                self.packets.release(id);
            }
            Admission::Queued { .. } => {
                self.try_start_service(port_id);
            }
        }
    }

    /// Feeds a deadline flow's request, as the port's allocator just answered it, to the priority
    /// inversion count.
    fn measure_request(&mut self, port: PortId, flow: FlowId, id: PacketId) {
        let (Some(book), Some(deadline)) = (self.inversions.as_mut(), self.flows[flow.idx()].deadline_at) else { return };
        let Some(h) = self.packets.ext(id).and_then(Ext::request) else { return };
        // A FIN, or a request for no rate (nearly done, or RCPdc), holds no deadline grant.
        if h.fin || h.desired == 0 {
            book.on_fin(port, flow, deadline);
        } else if let Some(hop) = usize::from(h.index).checked_sub(1) {
            book.on_request(port, flow, deadline, h.desired, h.alloc[hop]);
        }
    }

    fn try_start_service(&mut self, port_id: PortId) {
        let packets = &self.packets;
        let service = self.ports[port_id.idx()].serve(self.now, &mut self.pools, |id| packets.get(id).wire_bytes);
        if let Some(t) = service.arrival {
            self.events.push(t, Event::Arrive(port_id));
        }
        if let Some(t) = service.wake {
            self.events.push(t, Event::TxDone(port_id));
        }
    }

    fn on_tx_done(&mut self, port_id: PortId) {
        self.ports[port_id.idx()].woken();
        self.try_start_service(port_id);
        let host = self.host_of_port[port_id.idx()];
        if host != u32::MAX {
            self.unblock_senders(host as usize, port_id);
        }
    }

    /// The NIC of `host` drained: let waiting flows send while it is below its backlog bound.
    fn unblock_senders(&mut self, host: usize, nic: PortId) {
        while self.ports[nic.idx()].queue_bytes() < self.host_backlog_bytes[host] {
            let Some(id) = self.blocked[host].pop_front() else { break };
            let flow = &mut self.flows[id.idx()];
            flow.blocked = false;
            if flow.transport.is_some() {
                self.pump(id, Ends::Sender);
            }
        }
    }

    fn on_arrive(&mut self, port_id: PortId) {
        self.counters.hops += 1;
        let (id, next) = self.ports[port_id.idx()].pop_arrival();
        if let Some(t) = next {
            self.events.push(t, Event::Arrive(port_id));
        }
        if let Some(capture) = self.capture.as_mut().filter(|c| c.ports[port_id.idx()]) {
            let packet = self.packets.get(id);
            let flow = &self.flows[packet.flow.idx()];
            let (src, dst) = match packet.kind {
                PacketKind::Data => (flow.plan.src, flow.plan.dst),
                PacketKind::Ack => (flow.plan.dst, flow.plan.src),
            };
            let (sack, d3) = match self.packets.ext(id) {
                Some(Ext::Sack(blocks)) => (Some(blocks), None),
                Some(Ext::Request(h)) => (None, Some(D3Header::Request(h))),
                Some(Ext::Feedback(f)) => (None, Some(D3Header::Feedback(f))),
                None => (None, None),
            };
            let tcp = &self.transport.tcp;
            let frame = Frame {
                packet,
                sack,
                src,
                dst,
                flow_id: packet.flow.0,
                timestamps: tcp.timestamps,
                mss: u16::try_from(tcp.mss_bytes).unwrap_or(u16::MAX),
                sack_permitted: tcp.sack,
                d3,
            };
            capture.record(self.now, &frame);
        }
        let pkt = self.packets.get_mut(id);
        pkt.route.hop += 1;
        if pkt.route.hop < pkt.route.len {
            self.enqueue(id);
        } else {
            let pkt = *pkt;
            let ext = self.packets.ext(id).copied();
            self.packets.release(id);
            self.deliver(&pkt, ext.as_ref());
        }
    }

    /// A packet reached its destination host.
    fn deliver(&mut self, pkt: &Packet, ext: Option<&Ext>) {
        self.counters.delivered += 1;
        let now = self.now;
        let id = pkt.flow;
        let flow = &mut self.flows[id.idx()];
        let Some(transport) = flow.transport.as_mut() else {
            return; // a late duplicate for a flow whose endpoints are both done
        };
        let ends = match pkt.kind {
            PacketKind::Data => {
                let seg = DataSegment {
                    seq: pkt.seq,
                    len: pkt.len,
                    header_bytes: (pkt.wire_bytes - pkt.len) as u16,
                    ts: pkt.ts,
                    ect: pkt.ect,
                    ce: pkt.ce,
                    retransmission: pkt.retransmission,
                    syn: pkt.syn,
                };
                let request = ext.and_then(Ext::request);
                let before = transport.delivered_bytes();
                transport.handle_data(now, &seg, request);
                let delivered = transport.delivered_bytes();
                if delivered > before {
                    flow.stalls.on_progress(now);
                }
                if flow.connection.is_some() {
                    self.on_messages_delivered(id, delivered);
                } else if flow.finished_at.is_none() && flow.plan.size_bytes.is_some_and(|s| delivered >= s) {
                    flow.finished_at = Some(now);
                    self.on_flow_ended(id, true);
                }
                Ends::Receiver
            }
            PacketKind::Ack => {
                let (feedback, sack) = match ext {
                    Some(Ext::Feedback(f)) => (Some(f), SackBlocks::EMPTY),
                    Some(Ext::Sack(s)) => (None, *s),
                    _ => (None, SackBlocks::EMPTY),
                };
                let ack = AckSegment { ack: pkt.seq, ece: pkt.ece, ts_echo: pkt.ts, sack, header_bytes: pkt.wire_bytes as u16 };
                transport.handle_ack(now, &ack, feedback);
                Ends::Sender
            }
        };
        self.pump(id, ends);
    }

    /// The receiver of connection `carrier` holds `delivered` bytes in order: every message
    /// they complete finishes now.
    fn on_messages_delivered(&mut self, carrier: FlowId, delivered: u64) {
        while let Some(m) = self.flows[carrier.idx()].connection.as_mut().and_then(|c| c.pop_delivered(delivered)) {
            self.flows[m.idx()].finished_at = Some(self.now);
            self.on_flow_ended(m, true);
        }
    }

    // ---- processors and sampling ---------------------------------------------------------------

    /// Records flow `id`'s sender state if the flow is traced and any of it changed. Kept out of
    /// line, so that a run without traces pays one branch per `pump` and nothing in its code
    /// size (inlined, it cost the engine bench 2.5% more instructions).
    #[cold]
    #[inline(never)]
    fn trace(&mut self, id: FlowId) {
        let Some(traces) = self.traces.as_mut() else { return };
        let flow = &self.flows[id.idx()];
        if !traces.wants(id, flow.plan.workload) {
            return;
        }
        let Some(transport) = flow.transport.as_ref() else { return };
        let state = match transport {
            Transport::Tcp { sender, .. } => TraceState {
                cwnd_bytes: Some(sender.cwnd_bytes()),
                ssthresh_bytes: Some(sender.ssthresh_bytes()).filter(|&s| s != u64::MAX),
                srtt_ps: sender.srtt().map(Duration::as_ps),
                rto_ps: sender.rto().as_ps(),
                alpha: sender.congestion_control().dctcp_alpha(),
                d2tcp_cut: sender.congestion_control().d2tcp_last_cut(),
                d3_rate: None,
                d3_desired: None,
            },
            Transport::D3 { sender, .. } => TraceState {
                cwnd_bytes: None,
                ssthresh_bytes: None,
                srtt_ps: sender.srtt().map(Duration::as_ps),
                rto_ps: sender.rto().as_ps(),
                alpha: None,
                d2tcp_cut: None,
                d3_rate: Some(sender.sending_rate()),
                d3_desired: Some(sender.desired_rate()),
            },
        };
        if let Err(e) = traces.record(id, self.now, state) {
            self.fail(e);
        }
    }

    fn on_processor_timer(&mut self, port_id: PortId) {
        if self.processor_timer_at[port_id.idx()] != Some(self.now) {
            return;
        }
        self.processor_timer_at[port_id.idx()] = None;
        let port = &mut self.ports[port_id.idx()];
        let view = port.view();
        let processor = port.processor.as_mut().expect("timer of an attached processor");
        processor.handle_timeout(self.now, &view);
        if let Some(t) = processor.poll_timeout() {
            let t = t.max(self.now + Duration::from_ps(1));
            self.processor_timer_at[port_id.idx()] = Some(t);
            self.events.push(t, Event::ProcessorTimer(port_id));
        }
    }

    fn on_sample(&mut self) {
        if let Err(e) = self.take_samples() {
            self.fail(e);
            return;
        }
        let Some(s) = self.sampling.as_mut() else { return };
        s.ticks += 1;
        let next = self.now + s.interval;
        self.events.push(next, Event::Sample);
    }

    /// Records one tick's samples, within `run.max_samples` rows and the memory there is.
    fn take_samples(&mut self) -> Result<(), ResourceError> {
        let Some(s) = self.sampling.as_mut() else { return Ok(()) };
        let t = self.now.as_secs_f64();
        for (series, &port) in s.queues.iter_mut().zip(&s.queue_ports) {
            take_row(&mut s.rows_left, "output.queue_sample_interval")?;
            let port = &self.ports[port.idx()];
            push(&mut series.time_s, t)?;
            push(&mut series.queue_bytes, port.queue_bytes())?;
            if let Some(c) = port.processor.as_ref().and_then(|p| p.counters()) {
                push(&mut series.rate_counters, RateCounters { flows: c.flows, demand: c.demand, allocated: c.allocated, capacity: c.capacity })?;
            }
        }
        if let (Some(every), Some(tp)) = (s.throughput_every, s.throughput.as_mut()) {
            if s.ticks % every == 0 {
                for (i, f) in self.flows.iter().enumerate() {
                    if f.started_at.is_none() || f.finished_at.is_some_and(|done| done < self.now) {
                        continue;
                    }
                    take_row(&mut s.rows_left, "output.flow_throughput_interval")?;
                    push(&mut tp.time_s, t)?;
                    push(&mut tp.flow_id, i as u32)?;
                    push(&mut tp.delivered_bytes, outcome_of(&self.flows, f).delivered_bytes)?;
                }
            }
        }
        Ok(())
    }

    /// Stops the run on `e`, which the current `step` returns.
    fn fail(&mut self, e: ResourceError) {
        self.failure = Some(e);
        self.done = true;
    }

    /// Packets queued or on a wire anywhere (for conservation checks).
    pub fn packets_in_network(&self) -> u64 {
        self.ports.iter().map(Port::packets_held).sum()
    }
}

/// The counters of flow `f` of `flows`: a message of a persistent connection reads its share of
/// its connection's.
fn outcome_of(flows: &[Flow], f: &Flow) -> Outcome {
    match f.span {
        None => f.outcome(),
        Some(span) => {
            let carrier = &flows[span.carrier.idx()];
            span.outcome(carrier.transport.as_ref().map_or(0, Transport::delivered_bytes))
        }
    }
}

fn push_route(router: &mut Router, topo: &Topology, routes: &mut Vec<PortId>, src: u32, dst: u32, key: u64) -> Result<RouteCursor, ResourceError> {
    let (start, len) = router.route(topo, src, dst, key, routes)?;
    Ok(RouteCursor { start, len, hop: 0 })
}

/// The congestion header's 22 bytes count on the wire when a packet carries one (D3 Section 5).
fn ext_bytes(has_ext: bool) -> u32 {
    if has_ext {
        D3_HEADER_BYTES
    } else {
        0
    }
}

fn data_packet(flow: FlowId, seg: &DataSegment, route: RouteCursor, priority: u8, has_ext: bool) -> Packet {
    Packet {
        flow,
        kind: PacketKind::Data,
        seq: seg.seq,
        len: seg.len,
        wire_bytes: seg.wire_bytes() + ext_bytes(has_ext),
        ts: seg.ts,
        ect: seg.ect,
        ce: false,
        ece: false,
        retransmission: seg.retransmission,
        syn: seg.syn,
        priority,
        route,
        has_ext,
    }
}

fn ack_packet(flow: FlowId, ack: &AckSegment, route: RouteCursor, priority: u8, ext: Option<&Ext>) -> Packet {
    let has_ext = ext.is_some();
    Packet {
        flow,
        kind: PacketKind::Ack,
        seq: ack.ack,
        len: 0,
        wire_bytes: ack.wire_bytes() + ext_bytes(matches!(ext, Some(Ext::Feedback(_)))),
        ts: ack.ts_echo,
        ect: false,
        ce: false,
        ece: ack.ece,
        retransmission: false,
        syn: false,
        priority,
        route,
        has_ext,
    }
}

/// The marking threshold of a switch port; DCTCP Section 4: K = 20 packets at 1 Gbps, 65 at
/// 10 Gbps.
fn ecn_threshold(spec: EcnSpec, rate: BitsPerSec) -> EcnThreshold {
    let packets = |n| EcnThreshold { packets: n, ..EcnThreshold::NEVER };
    match spec {
        EcnSpec::Off => EcnThreshold::NEVER,
        EcnSpec::Bytes(b) => EcnThreshold { bytes: b, ..EcnThreshold::NEVER },
        EcnSpec::Packets(n) => packets(n),
        EcnSpec::Auto if rate <= BitsPerSec::GBPS => packets(20),
        EcnSpec::Auto => packets(65),
    }
}

fn protocol_name(p: Protocol) -> &'static str {
    match p {
        Protocol::Tcp => "tcp",
        Protocol::Dctcp => "dctcp",
        Protocol::D2tcp => "d2tcp",
        Protocol::D3 => "d3",
        Protocol::Rcpdc => "rcpdc",
        Protocol::TcpPr => "tcppr",
    }
}

/// The ports `patterns` (the list at `field`) name, pattern by pattern, each pattern's ports in
/// the topology's order, each port once; a pattern that names no port is an error naming it.
fn ports_matching(topo: &Topology, patterns: &[String], field: &str) -> Result<Vec<PortId>, Error> {
    let mut chosen = Vec::new();
    if patterns.is_empty() {
        return Ok(chosen);
    }
    let names: Vec<String> = (0..topo.ports.len() as u32).map(|p| topo.port_name(PortId(p))).collect();
    let mut taken = try_vec(names.len(), false, "the port table")?;
    for (j, pattern) in patterns.iter().enumerate() {
        let mut matched = false;
        for (p, name) in names.iter().enumerate() {
            if crate::port_pattern::matches(pattern, name) {
                matched = true;
                if !taken[p] {
                    taken[p] = true;
                    chosen.push(PortId(p as u32));
                }
            }
        }
        if !matched {
            let some: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
            return Err(Error::Scenario(ScenarioError {
                path: format!("{field}[{j}]"),
                message: format!("{pattern:?} matches no port of this topology (its ports are named like {})", some.join(", ")),
            }));
        }
    }
    Ok(chosen)
}

fn build_sampling(scenario: &Scenario, topo: &Topology, hosts: u32) -> Result<Option<Sampling>, Error> {
    let out = &scenario.output;
    let queue = out.queue_samples.as_ref();
    let interval = match (queue.map(|q| q.interval), out.flow_throughput_interval) {
        (None, None) => return Ok(None),
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b).expect("one is set"),
    };
    let sampled = queue.map_or(&[][..], |q| &q.host_downlinks[..]);
    let patterns = queue.map_or(&[][..], |q| &q.ports[..]);
    // Ports by host first, in the order given, then pattern by pattern, each pattern's ports in
    // the topology's order; each port once.
    let mut chosen: Vec<PortId> = Vec::new();
    reserve(&mut chosen, sampled.len(), "the sampled ports")?;
    for &h in sampled {
        if h >= hosts {
            return Err(Error::Scenario(ScenarioError {
                path: "output.queue_sample_hosts".into(),
                message: format!("host {h} does not exist (the topology has {hosts} hosts)"),
            }));
        }
        chosen.push(topo.host_downlink(h));
    }
    let by_host = chosen.clone();
    chosen.extend(ports_matching(topo, patterns, "output.queue_sample_ports")?.into_iter().filter(|p| !by_host.contains(p)));
    let host_facing = |port: PortId| -> Option<u32> {
        let peer = topo.ports[port.idx()].peer;
        match topo.nodes[peer.idx()].kind {
            crate::topology::NodeKind::Host(h) if !topo.is_host(topo.ports[port.idx()].node) => Some(h),
            _ => None,
        }
    };
    let queues = chosen
        .iter()
        .map(|&port| QueueSeries { port: topo.port_name(port), host: host_facing(port), ..Default::default() })
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

/// Runs `scenario` to the end.
pub fn run(scenario: &Scenario) -> Result<RunResults, Error> {
    let mut sim = Simulation::new(scenario)?;
    while !sim.step(1 << 20)? {}
    Ok(sim.finish()?)
}
