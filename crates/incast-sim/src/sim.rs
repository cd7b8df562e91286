//! The simulation: one value that owns the network, the flows and the event queue, and advances
//! them event by event. Each port has at most two pending events (serialization done, next arrival
//! at the far end of its link) and each flow at most one live timer, so the heap grows with
//! components, not with packets.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use incast_proto::time::{BitsPerSec, Duration, Instant};

use crate::capture::Frame;
use crate::connection::Connection;
use crate::error::{reserve, try_vec, Error, ResourceError};
use crate::event::{Event, EventQueue};
use crate::flow::Flow;
use crate::flow_table::{FlowTable, Slot};
use crate::ids::{FlowId, NodeId, PacketId, PortId};
use crate::network::Network;
use crate::observe::Observers;
use crate::offer_log::Offer;
use crate::arena::PacketArena;
use crate::packet::{Packet, PacketKind};
use crate::port::Admission;
use crate::report::{RecordTally, RunEnd};
use crate::rounds::{Message, Pushed, Rounds, BARRIER, MAX_PARTS};
use crate::results::{FlowRecord, RunResults, RunStatus, Stall};
use crate::scenario::{Protocol, RunSpec, Scenario, TransportSpec};
use crate::transport::{port_counters, stall_keys, Arriving, FlowStart, Header, Passage, Processor, Way};
use crate::watchdog::{Stalled, Watchdog};
use crate::workload::{plan, Burst, FlowPlan, LazySource};

mod crew;

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

/// Which end of a flow: the one `pump` polls for output after handing it something, or whose
/// timer fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ends {
    Sender,
    Receiver,
}

/// A simulation in progress. Build it with [`Simulation::new`], advance it with
/// [`Simulation::step`] until that returns true, then take the results with
/// [`Simulation::finish`].
pub struct Simulation {
    now: Instant,
    events: EventQueue,
    event_count: u64,
    net: Network,
    packets: PacketArena,
    /// The flows started or due to start, by number; ended flows leave it (`release_if_done`).
    flows: FlowTable,
    /// Flows numbered so far (planned before the run, reserved by `sources`, or drawn by a
    /// closed-loop burst since): the next flow's number.
    numbered: u32,
    /// Poisson and trace workloads' flows, drawn as the run reaches them, with each one's next flow.
    sources: Vec<(LazySource, Option<(u32, FlowPlan)>)>,
    /// Release ended flows (not when per-flow throughput is sampled: it reads every flow).
    releasing: bool,
    /// Pending timer events at which the stale ones are purged next (`purge_timers`).
    purge_timers_at: usize,
    /// The least `purge_timers_at` (`MIN_TIMERS_PURGED`; tests purge more often).
    purge_floor: usize,
    /// Rows of released flows not yet taken (`take_flow_records`).
    records: Vec<FlowRecord>,
    /// What the summary counts of every row made so far, taken or not.
    tally: RecordTally,
    transport: TransportSpec,
    /// `[run]`, for the measurement window the results mark flows by.
    run: RunSpec,
    /// Prefetch two events ahead: the ports take more memory than the caches hold.
    deep_prefetch: bool,
    /// Flows to start: (start, number, source): the source's index in `sources` for the next
    /// flow of a Poisson or trace workload, not yet drawn into the table; `NO_SOURCE` for the others.
    starts: BinaryHeap<Reverse<(Instant, u32, u32)>>,
    starts_event_at: Option<Instant>,
    processor_timer_at: Vec<Option<Instant>>,
    /// Per host: the flows waiting for its NIC to drain below its backlog bound (FIFO, so flows
    /// of one host share the NIC round-robin).
    blocked: Vec<VecDeque<FlowId>>,
    /// Round generators of flow-burst workloads, indexed by workload.
    bursts: Vec<Option<Burst>>,
    end: Option<Instant>,
    /// `[run] horizon`: no event after it is processed.
    horizon: Instant,
    /// The run stopped at the horizon with work left.
    stopped_at_horizon: bool,
    /// `[run] stall_after`: stops a run that no longer moves (`crate::watchdog`).
    watchdog: Watchdog,
    /// Why the run stalled, if it did.
    stall: Option<Stall>,
    /// Flows started and not ended (long-lived ones never end).
    running: u64,
    /// Why the run stopped early, reported by the `step` that stopped it.
    failure: Option<ResourceError>,
    /// `[run] stop_after_finite_flows`: end once every finite flow is done, long flows or not.
    stop_after_finite_flows: bool,
    finite_remaining: u64,
    completed: u64,
    obs: Observers,
    /// Carrier flow of each persistent connection, by (src, dst, protocol).
    connections: HashMap<(u32, u32, Protocol), FlowId>,
    wall: std::time::Duration,
    done: bool,
    /// The run cut into parts, run in rounds (`crate::rounds`), or `None` for one loop over the
    /// whole network; `events` then holds the coordinator's events only (flow starts, samples).
    rounds: Option<Box<Rounds>>,
    /// A run on several threads: the engines of the other threads (`crew`); this one is the
    /// first, which holds the results.
    crew: Option<Box<Crew>>,
}

/// Which share of a run cut into parts an engine runs: engine `engine` of `engines`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    pub(crate) engine: u32,
    pub(crate) engines: u32,
    /// Which engine runs each part, if not as `Partition::assign` deals them: tests deal the
    /// parts at random, since no result may depend on which engine runs which part.
    pub(crate) deal: Option<&'static [u32]>,
}

impl Cut {
    /// Every part, on one engine.
    #[cfg(test)]
    pub(crate) const WHOLE: Cut = Cut { engine: 0, engines: 1, deal: None };
}

/// What a run cut into parts (`[run] threads`) cannot have, from the scenario and its network's
/// `partition` alone, so that `incast check` refuses what the run would: the key and why, or
/// `None`. A network of one part is never cut, and refuses nothing.
///
/// - persistent connections (an OLDI workload's `connections`): one connection object that
///   both ends read, each in its own part;
/// - a transport whose ends share state without a packet, as its `Plugin::unsplit` says;
/// - more parts than an event's sequence number can tell apart (`MAX_PARTS`);
/// - a closed-loop flow-burst workload whose `round_gap` is below the lookahead: its next round
///   starts `round_gap` after the round's last response ends, in every part; drawn at the
///   barrier after the round in which that end fell (`Simulation::draw_bursts`), it must not
///   start before that round's bound.
pub(crate) fn refused_in_parts(scenario: &Scenario, partition: &crate::Partition) -> Option<(String, String)> {
    use crate::scenario::{Connections, RoundStarts, WorkloadSpec};
    let lookahead = partition.lookahead.filter(|_| partition.parts > 1)?;
    for (i, workload) in scenario.workloads.iter().enumerate() {
        if matches!(workload, WorkloadSpec::Oldi(o) if o.connections == Connections::Persistent) {
            let why = "a run cut into parts cannot have persistent connections (whose messages' ends meet in one connection object, not only through packets) yet; set connections = \"per-message\", or leave [run] threads unset";
            return Some((format!("workload[{i}].connections"), why.to_owned()));
        }
    }
    if let Some((key, why)) = scenario.protocols_in_use().into_iter().find_map(|p| crate::transport::unsplit(p, scenario)) {
        return Some((key.to_owned(), format!("a run cut into parts cannot have {why}")));
    }
    if partition.parts > MAX_PARTS {
        let why = format!("a network of {} parts (switches) cannot be cut into parts; at most {MAX_PARTS}", partition.parts);
        return Some(("run.threads".to_owned(), why));
    }
    for (i, workload) in scenario.workloads.iter().enumerate() {
        if let WorkloadSpec::FlowBurst { rounds, round_starts: RoundStarts::AfterCompletion { gap }, .. } = workload {
            if *rounds > 1 && *gap < lookahead {
                let why = format!(
                    "a closed-loop flow-burst workload in a run cut into parts needs `round_gap` at least the least delay of a link between parts ({lookahead}), since its next round starts where the last response ends, in every part at once; it is {gap}"
                );
                return Some((format!("workload[{i}].round_gap"), why));
            }
        }
    }
    None
}

/// Refuses, as a run on `scenario.run.threads` would, what its parts cannot have
/// (`refused_in_parts`); nothing without `threads`. Builds the topology, not the network:
/// `incast check` (`incast._core.check`) calls it after parsing, so that it refuses what the
/// run would. Returns the network's partition when `threads` is set, for `threads_warning`.
pub fn check_parts(scenario: &Scenario) -> Result<Option<crate::Partition>, Error> {
    if scenario.run.threads.is_none() {
        return Ok(None);
    }
    let partition = crate::Partition::of(&crate::topology::Topology::build(&scenario.topology)?);
    match refused_in_parts(scenario, &partition) {
        Some((key, why)) => Err(Error::Scenario(crate::scenario::ScenarioError::new(key, why))),
        None => Ok(Some(partition)),
    }
}

/// `[run] threads` above the parts of `partition`, the network's, where links without delay
/// joined switches into fewer parts than it has switches (the network is never cut across a
/// link without delay, so its two ends share a part): the run uses fewer threads than the
/// file says, which only the built topology shows. The scenario's own warning at `run.threads`
/// (incast-scenario's `warnings`) counts switches; when it fires, this does not.
pub fn threads_warning(scenario: &Scenario, partition: &crate::Partition) -> Option<crate::scenario::Warning> {
    let threads = scenario.run.threads?.count();
    let switches = incast_scenario::footprint::Shape::of(&scenario.topology).switches;
    if partition.engines(threads) == threads || u64::from(threads) > switches.max(1) {
        return None;
    }
    let parts = partition.parts;
    let what = if parts == 1 { "one part, so the run is the one event loop, on one thread".to_owned() } else { format!("{parts} parts, so the run uses at most {parts} threads") };
    let why = format!(
        "asks for {threads} threads, but links without delay join this network's {switches} switches into {what} (the network is never cut across a link without delay; docs/scenario.md, \"Threads\")"
    );
    Some(crate::scenario::Warning::new("run.threads", why))
}

/// The engines of a run's other threads, and the post between all (`crew`).
pub(crate) struct Crew {
    engines: Vec<std::sync::Mutex<Simulation>>,
    post: crate::rounds::Post,
    /// Rounds run so far.
    rounds: u64,
    /// The machine's cores, read once: whether the threads may spin as they wait for each other
    /// (`crew`).
    cores: usize,
}

impl Crew {
    /// The crew of the first of `engines` engines, before the others are built.
    pub(crate) fn new(engines: u32) -> Crew {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Crew { engines: Vec::new(), post: crate::rounds::Post::new(engines as usize), rounds: 0, cores }
    }

    /// Threads the run uses.
    pub(crate) fn threads(&self) -> usize {
        self.engines.len() + 1
    }

    /// The sum of `count` over the other engines.
    pub(crate) fn held(&self, count: impl Fn(&Simulation) -> u64) -> u64 {
        self.engines.iter().map(|e| count(&e.lock().expect("an engine's lock"))).sum()
    }
}

/// Ports' memory beyond which a network is large: its events go through a lookahead window
/// and a calendar, and `Simulation::prefetch_ahead` loads their chains of misses ahead. About
/// what a core's private caches hold. Measured (2026-11-27, medians of 3, interleaved): taken on
/// every network, they cost the 41-host star 67% per event, the 144-host leaf-spine 39%, the
/// k = 8 fat tree (0.2 MB of ports) 21%, the two-tier OLDI network (0.56 MB) 5%; on the k = 16
/// fat tree (1.7 MB) an event costs 21% less than with the two-event look and heaps before them,
/// on the k = 32 one (13 MB) 46% less.
const DEEP_PREFETCH_BYTES: usize = 1 << 20;

/// How many events ahead `prefetch_ahead` looks, the next one included: the steps of the longest
/// chain of misses it loads, plus one.
const LOOKAHEAD: usize = 7;

/// How far ahead a packet event is scheduled at most, give or take, on `net`: a full-size
/// packet's serialization plus its link's delay, the longest over the links (a packet waiting
/// for a busy serializer is scheduled when it starts): the span of the packet events' calendar,
/// whose ring, its bucket width a power of two, then spans one to two times that. Only speed
/// depends on it: twice the span (wider buckets, fuller) was 3% slower on the fat trees of
/// `benches/` and held 2-4 MB more.
fn packet_event_span(net: &Network) -> u64 {
    const FULL_SIZE: u64 = 1538; // an Ethernet frame's bytes on the wire, 1500 B of IP packet
    let longest = net.ports.iter().map(|p| p.info.link.rate.tx_time(FULL_SIZE) + p.info.link.delay).max();
    longest.map_or(0, |d| d.as_ps())
}

/// A start of a flow already in the table.
const NO_SOURCE: u32 = u32::MAX;

/// Pending timer events below which stale ones are left for their time (`purge_timers`): a
/// purge is then cheaper to skip than to run.
const MIN_TIMERS_PURGED: usize = 1 << 16;

impl Simulation {
    /// Builds the network and workload of `scenario`, which scenario validation
    /// ([`crate::scenario::parse_toml`], `parse_json`, `load`) accepted: a hand-built
    /// [`Scenario`] that validation would refuse may panic (debug builds assert each
    /// precondition). Fails with [`Error::Resource`] when memory runs out or the workloads draw
    /// more than `run.max_flows` flows.
    pub fn new(scenario: &Scenario) -> Result<Simulation, Error> {
        match scenario.run.threads {
            None => Simulation::build(scenario, None, None),
            Some(threads) => Simulation::on_threads(scenario, threads.count(), None),
        }
    }

    /// The run of `scenario` on `threads` threads (`[run] threads`, `crew`): the first engine,
    /// holding the others. A network of one part runs as one loop, of fewer parts than threads
    /// on one thread a part. The parts are dealt to the engines as `deal` says, if it says
    /// (`Cut::deal`: tests). The engines are built at once, each on its thread (on the k = 32
    /// fat tree a build is a tenth of the run on 2 threads).
    fn on_threads(scenario: &Scenario, threads: u32, deal: Option<&'static [u32]>) -> Result<Simulation, Error> {
        let engines = crate::Partition::of(&crate::topology::Topology::build(&scenario.topology)?).engines(threads);
        let build = |engine| Simulation::build(scenario, None, Some(Cut { engine, engines, deal }));
        let mut built = std::thread::scope(|scope| {
            let others: Vec<_> = (1..engines).map(|engine| scope.spawn(move || build(engine))).collect();
            let first = build(0);
            let others: Vec<_> = others.into_iter().map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect();
            std::iter::once(first).chain(others).collect::<Vec<_>>()
        })
        .into_iter();
        let mut first = built.next().expect("the first engine")?;
        debug_assert_eq!(first.rounds.as_deref().map_or(1, Rounds::engines), engines);
        for other in built {
            first.crew.as_deref_mut().expect("a run cut into parts has a crew").engines.push(std::sync::Mutex::new(other?));
        }
        Ok(first)
    }

    /// `new`, its network cut into parts that run in rounds (`crate::rounds`) on one engine,
    /// whatever `[run] threads` says.
    #[cfg(test)]
    pub(crate) fn in_parts(scenario: &Scenario) -> Result<Simulation, String> {
        Simulation::build(scenario, None, Some(Cut::WHOLE)).map_err(|e| e.to_string())
    }

    /// `new`, with the large network's event queue and prefetching (`deep_prefetch`) taken or
    /// not as `large` says, or as the network's size says if it says nothing; cut into parts if
    /// `cut` says so and the network has more than one, running the parts `cut` gives it.
    fn build(scenario: &Scenario, large: Option<bool>, cut: Option<Cut>) -> Result<Simulation, Error> {
        let mut net = Network::build(scenario)?;
        let deep_prefetch = large.unwrap_or(net.ports.len() * std::mem::size_of::<crate::port::Port>() > DEEP_PREFETCH_BYTES);
        let calendar_span = packet_event_span(&net);
        let mut plan = plan(&scenario.workloads, scenario.seed, scenario.run.max_flows)?;
        let obs = Observers::new(scenario, &net)?;
        if let Some(log) = &obs.offer_log {
            for (port, &logged) in net.ports.iter_mut().zip(&log.ports) {
                port.offers_logged = logged;
            }
        }
        let processor_timer_at = try_vec(net.ports.len(), None, "the port table")?;
        let blocked = try_vec(net.hosts() as usize, VecDeque::new(), "the host table")?;
        let mut starts = BinaryHeap::new();
        let known = plan.flows.len() + plan.sources.len();
        starts.try_reserve(known).map_err(|_| ResourceError::allocation::<(Instant, u32, u32)>("the flow starts", known))?;
        let releasing = scenario.output.flow_throughput_interval.is_none();
        let rates = || net.ports.iter().map(|p| p.info.link.rate);
        let (fastest, slowest) = (rates().max().unwrap_or(BitsPerSec::GBPS), rates().min().unwrap_or(BitsPerSec::GBPS));
        let first_timeout = net.setups.first_timeout(&scenario.protocols_in_use());
        let span = crate::watchdog::span(scenario.run.stall_after, slowest, first_timeout);
        let watchdog = Watchdog::new(span, scenario.run.duration.is_none(), net.ports.len() as u64, fastest);
        let mut sim = Simulation {
            now: Instant::ZERO,
            events: if deep_prefetch { EventQueue::with_lookahead(LOOKAHEAD, calendar_span)? } else { EventQueue::default() },
            event_count: 0,
            processor_timer_at,
            net,
            packets: PacketArena::default(),
            flows: FlowTable::default(),
            numbered: plan.total() as u32,
            sources: Vec::new(),
            releasing,
            purge_timers_at: MIN_TIMERS_PURGED,
            purge_floor: MIN_TIMERS_PURGED,
            records: Vec::new(),
            tally: RecordTally::default(),
            transport: scenario.transport.clone(),
            run: scenario.run,
            deep_prefetch,
            starts,
            starts_event_at: None,
            blocked,
            bursts: std::mem::take(&mut plan.bursts),
            end: scenario.run.duration.map(|d| Instant::ZERO + d),
            horizon: Instant::ZERO + scenario.run.horizon,
            stopped_at_horizon: false,
            watchdog,
            stall: None,
            running: 0,
            failure: None,
            stop_after_finite_flows: scenario.run.stop_after_finite_flows,
            finite_remaining: 0,
            completed: 0,
            obs,
            connections: HashMap::new(),
            wall: std::time::Duration::ZERO,
            done: false,
            rounds: None,
            crew: None,
        };
        if let Some(cut) = cut {
            sim.cut_into_parts(scenario, cut).map_err(|(key, why)| Error::Scenario(crate::scenario::ScenarioError::new(key, why)))?;
            if cut.engine == 0 {
                sim.crew = sim.rounds.as_deref().map(|rounds| Box::new(Crew::new(rounds.engines())));
            } else {
                // The first engine samples, with the other engines' ports lent to it (`crew`).
                sim.obs.sampling = None;
            }
        }
        for (i, f) in plan.numbered() {
            sim.add_flow(FlowId(i), f)?;
        }
        let default = sim.transport.protocol;
        let mut protocols: Vec<Protocol> =
            sim.flows.slots().map(|f| f.protocol).chain(plan.sources.iter().filter_map(|s| s.protocol(default))).collect();
        protocols.sort_unstable();
        protocols.dedup();
        sim.finite_remaining += plan.sources.iter().map(|s| s.finite).sum::<u64>();
        for mut source in plan.sources {
            let next = source.draw()?;
            if let Some((i, f)) = next {
                sim.starts.push(Reverse((f.start, i, sim.sources.len() as u32)));
            }
            sim.sources.push((source, next));
        }
        // The ports' processors of the transports the flows run (D3's allocators at switch
        // ports, PDQ's schedulers at every port).
        for (port, processor) in sim.net.processors(&protocols) {
            sim.attach_processor(port, processor);
        }
        sim.schedule_starts();
        if sim.obs.sampling.is_some() {
            // A run cut into parts samples between rounds, from the coordinator's queue.
            sim.rounds.as_deref_mut().map_or(&mut sim.events, |r| &mut r.coordinator).push(Instant::ZERO, Event::Sample);
        }
        Ok(sim)
    }

    /// Cuts the network into parts run in rounds (`crate::rounds`), before anything is
    /// scheduled; a network of one part is left whole. Refuses, naming the key, what the parts
    /// cannot share (`refused_in_parts`). Traces, offer logs and captures are recorded per part
    /// and ordered after the run.
    fn cut_into_parts(&mut self, scenario: &Scenario, cut: Cut) -> Result<(), (String, String)> {
        let partition = crate::Partition::of(&self.net.topo);
        if let Some(refused) = refused_in_parts(scenario, &partition) {
            return Err(refused);
        }
        if partition.parts > 1 {
            let mut rounds = Rounds::new(&self.net.topo, &partition);
            if cut.engines > 1 {
                let deal = cut.deal.map_or_else(|| partition.assign(&self.net.topo, cut.engines), <[u32]>::to_vec);
                rounds.own_only(deal, cut.engine);
            }
            // A link between two parts: each packet on it has an arrival event of its own,
            // scheduled by the part that sends it. Were the receiving part to schedule the next
            // from the one it takes off the wire, that event's place among those of its instant
            // would depend on whether the sending part had put the packet on the wire before or
            // after, that is on the order the parts run in.
            for (i, port) in self.net.ports.iter_mut().enumerate() {
                let id = PortId(i as u32);
                port.each_arrival = rounds.is_cut(id);
                (port.send_part, port.receive_part) = (rounds.sender_part(id), rounds.receiver_part(id));
                port.receive_away = rounds.engine_of(port.receive_part) != rounds.engine();
            }
            if let Some(log) = self.obs.offer_log.as_mut() {
                log.cut_into_parts();
            }
            if let Some(capture) = self.obs.capture.as_mut() {
                capture.cut_into_parts();
            }
            self.rounds = Some(Box::new(rounds));
        }
        Ok(())
    }

    /// How the network would be cut into parts for a run across threads (`crate::partition`):
    /// how many, how far apart in time, how much the largest holds.
    pub fn partition(&self) -> crate::Partition {
        crate::Partition::of(&self.net.topo)
    }

    /// Egress ports of switches, where in-network processors may be attached.
    pub fn switch_ports(&self) -> Vec<PortId> {
        self.net.switch_ports().collect()
    }

    /// The switch port that transmits towards `host`, if the host exists.
    pub fn host_downlink(&self, host: u32) -> Option<PortId> {
        (host < self.net.hosts()).then(|| self.net.topo.host_downlink(host))
    }

    /// Traces flows `ids` too, as `[output] trace_flows` would (before the run starts): how a
    /// driver traces flows it picked from an earlier run of the same scenario, such as its
    /// slowest. Fails naming an id the run will not have (flows of burst rounds drawn later are
    /// numbered after those drawn so far).
    pub fn trace_flows(&mut self, ids: &[u32]) -> Result<(), String> {
        if self.event_count != 0 {
            return Err("flows are chosen for tracing before the run starts".into());
        }
        let flows = u64::from(self.numbered) + self.bursts.iter().flatten().map(Burst::flows_to_come).sum::<u64>();
        if let Some(&id) = ids.iter().find(|&&id| u64::from(id) >= flows) {
            return Err(format!("flow {id} does not exist (the run has {flows} flows, numbered from 0)"));
        }
        self.obs.trace_flows(ids);
        // On several threads, each engine traces the flows whose senders it runs.
        for engine in self.crew.iter().flat_map(|crew| crew.engines.iter()) {
            engine.lock().expect("an engine's lock").obs.trace_flows(ids);
        }
        Ok(())
    }

    /// Installs a transport's processor at a port (before the run starts), with its timer.
    fn attach_processor(&mut self, port: PortId, processor: Processor) {
        debug_assert!(self.event_count == 0, "processors are attached before the run starts");
        if let Some(t) = processor.poll_timeout() {
            self.processor_timer_at[port.idx()] = Some(t);
            self.schedule(t, Event::ProcessorTimer(port));
        }
        self.net.ports[port.idx()].processor = Some(Box::new(processor));
    }

    /// Processes at most `max_events` events; returns true once the run is over. Fails, and
    /// stays over, when the run needs more memory than it can get or records more than
    /// `run.max_samples` samples.
    pub fn step(&mut self, max_events: u64) -> Result<bool, ResourceError> {
        let wall_start = std::time::Instant::now();
        let mut left = max_events;
        let stop = self.end.unwrap_or(Instant::NEVER).min(self.horizon);
        while !self.done && left > 0 {
            if self.rounds.is_some() {
                let before = self.event_count;
                self.run_rounds(left, stop);
                left = left.saturating_sub(self.event_count - before);
                continue;
            }
            // The watchdog's tests are due at an event count and at an instant: the loop's own
            // budget and limit stop there, so each event pays nothing for them.
            let before = self.event_count;
            let budget = left.min(self.watchdog.events_before_check(before));
            let watch_at = self.watchdog.check_at();
            let idle_test_due = self.run_events(budget, stop, watch_at);
            left = left.saturating_sub(self.event_count - before);
            if !self.done {
                self.watch(idle_test_due, watch_at);
            }
        }
        self.wall += wall_start.elapsed();
        match self.failure.take() {
            Some(e) => Err(e),
            None => Ok(self.done),
        }
    }

    /// Processes at most `budget` events up to `stop` (the end of the run or its horizon) and no
    /// further than `watch_at`; returns true if it stopped because the next event lies past
    /// `watch_at`, before `stop`. In a run cut into parts, runs the current part's events of
    /// the round instead (`crate::rounds`; `run_rounds` sets which, and the round's bound).
    ///
    /// The one loop that dispatches events, for both: a second (each inlining `dispatch` and
    /// what it calls) would give each handler two callers, and LLVM inlines a function into its
    /// only caller as it does not into two (7% more instructions on the star, measured).
    #[inline(never)]
    fn run_events(&mut self, mut budget: u64, stop: Instant, watch_at: Instant) -> bool {
        let limit = stop.min(watch_at);
        while !self.done && budget > 0 {
            let Some((t, event)) = self.events.pop_until(limit) else {
                if self.rounds.is_some() {
                    return false; // the engine's parts have run up to the round's bound
                }
                if limit < stop && !self.events.is_empty() {
                    return true;
                }
                self.run_out(stop);
                break;
            };
            self.now = t;
            self.event_count += 1;
            budget -= 1;
            if self.rounds.is_some() {
                self.enter_part_of(event);
            }
            self.dispatch(event);
            self.prefetch_next();
            // A run cut into parts tests this between rounds, when every part has run.
            if self.finite_remaining == 0 && self.rounds.is_none() && self.starts.is_empty() && (self.has_no_long_flows() || self.stop_after_finite_flows) {
                self.done = true;
            }
        }
        false
    }

    /// A run cut into parts: the part of `event`, about to run, is the running one
    /// (`Rounds::current`; the coordinator's events run between rounds). Out of line, so that
    /// the one loop's stays as it was.
    #[inline(never)]
    fn enter_part_of(&mut self, event: Event) {
        let rounds = self.rounds.as_deref_mut().expect("a run cut into parts");
        // A port's event reads its part from the port (`Port::send_part`), whose lines the
        // event reads next anyway; the tables by port agree (`Rounds::part_of`).
        let ports = &self.net.ports;
        let part = match event {
            Event::TxDone(p) | Event::ProcessorTimer(p) => ports[p.idx()].send_part,
            Event::Arrive(p) => ports[p.idx()].receive_part,
            _ => rounds.part_of(event, || host_of(&self.flows, event)),
        };
        debug_assert_eq!(part, rounds.part_of(event, || host_of(&self.flows, event)), "{event:?}");
        rounds.current = part;
    }

    /// Nothing is left to run before `stop` (the end of the run or its horizon): the run is over
    /// at its end, or now if it had none. Events left past a horizon that comes first are work
    /// the run could not finish: it stops at the horizon, and says so.
    fn run_out(&mut self, stop: Instant) {
        self.run_out_with(stop, !self.events.is_empty());
    }

    /// `run_out`, with events left (`pending`) or not in any part or engine.
    fn run_out_with(&mut self, stop: Instant, pending: bool) {
        let horizon_first = stop == self.horizon && self.end.is_none_or(|end| end > self.horizon);
        self.stopped_at_horizon = horizon_first && pending;
        self.now = if self.stopped_at_horizon { self.horizon } else { self.end.map_or(self.now, |end| end.min(self.horizon)) };
        self.done = true;
    }

    /// Runs the watchdog's tests that are due: the timer test after its count of events, the
    /// no-progress test at `watch_at` (`idle_test_due`: every event up to it has run). Stops the
    /// run if either finds it stalled.
    #[cold]
    #[inline(never)]
    fn watch(&mut self, idle_test_due: bool, watch_at: Instant) {
        if self.watchdog.timers_due(self.event_count) {
            if let Some(stalled) = self.watchdog.check_timers(self.now, self.event_count, self.running) {
                return self.stalled(stalled);
            }
        }
        if !idle_test_due {
            return;
        }
        let Some(since) = self.watchdog.progress_due(watch_at) else { return };
        let mut oldest: Option<Instant> = None;
        let mut running = 0;
        for (_, flow) in self.flows.iter() {
            if let Some(start) = flow.started_at.filter(|_| flow.running()) {
                running += 1;
                oldest = Some(oldest.map_or(start, |o| o.min(start)));
            }
        }
        debug_assert!(oldest.is_none_or(|o| o <= watch_at) && since <= watch_at);
        if let Some(stalled) = self.watchdog.running_since(watch_at, oldest, running) {
            // Nothing happened between the last event and the test: time moves on to it.
            self.now = watch_at;
            self.stalled(stalled);
        }
    }

    /// Ends the run as stalled, saying why and naming the keys of the running flows' transports.
    fn stalled(&mut self, stalled: Stalled) {
        let mut protocols: Vec<Protocol> = self.flows.iter().map(|(_, f)| f).filter(|f| f.running()).map(|f| f.protocol).collect();
        protocols.sort_unstable();
        protocols.dedup();
        let mut keys: Vec<&'static str> = Vec::new();
        for &p in &protocols {
            for &key in stall_keys(p) {
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
        let labels: Vec<&str> = protocols.iter().map(|p| p.label()).collect();
        let reason = stalled.reason(&labels, &keys);
        self.stall = Some(Stall { reason, keys });
        self.done = true;
    }

    /// Where the run is.
    pub fn progress(&self) -> Progress {
        Progress {
            sim_time_s: self.now.as_secs_f64(),
            end_time_s: self.end.map(Instant::as_secs_f64),
            events: self.event_count,
            flows_completed: self.completed,
            flows_total: u64::from(self.numbered),
        }
    }

    /// The rows of the flows released since the last call: flows that ended and left the
    /// table, in the order they left it. The summary still counts them; [`finish`](Self::finish)
    /// returns only the rows not taken. A driver that writes rows out as the run goes (`incast
    /// run --stream-flows`) holds memory for the flows in flight, not for every flow of the run.
    pub fn take_flow_records(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.records)
    }

    /// Ends the run and returns its results: the rows of the flows not taken by
    /// [`take_flow_records`](Self::take_flow_records), in flow number order, and the summary of
    /// every flow. Fails only if memory runs out for the flow table.
    pub fn finish(mut self) -> Result<RunResults, ResourceError> {
        let packets_elsewhere = self.gather_crew()?;
        if self.rounds.is_some() {
            // Each flow's rows come from its sender's part, each port's offers from the port's
            // part and its captured packets from its far end's; parts interleave differently on
            // different engines, flows and ports do not.
            if let Some(traces) = self.obs.traces.as_mut() {
                traces.order_by_time_and_flow()?;
            }
            if let Some(log) = self.obs.offer_log.as_mut() {
                log.order_and_cut()?;
            }
            if let Some(capture) = self.obs.capture.as_mut() {
                capture.order_and_cut()?;
            }
        }
        let mut records = std::mem::take(&mut self.records);
        let live: Vec<FlowId> = self.flows.iter().map(|(id, _)| id).collect();
        reserve(&mut records, live.len(), "the flow records")?;
        for id in live {
            let record = self.record_of(id, &self.flows[id]);
            self.tally.add(&record);
            records.push(record);
        }
        // Poisson arrivals and trace rows the run never reached: their rows are those of flows
        // that never started, with the routes they would have taken.
        let mut sources = std::mem::take(&mut self.sources);
        for (source, next) in &mut sources {
            while let Some((i, plan)) = match next.take() {
                Some(drawn) => Some(drawn),
                None => source.draw()?,
            } {
                let flow = self.new_flow(FlowId(i), &plan)?;
                let record = self.record_of(FlowId(i), &flow);
                self.net.release_routes(&flow.routes())?;
                self.tally.add(&record);
                reserve(&mut records, 1, "the flow records")?;
                records.push(record);
            }
        }
        records.sort_unstable_by_key(|r| r.flow_id);
        let names = port_counters();
        let mut sums = vec![0; names.len()];
        for processor in self.net.ports.iter().filter_map(|p| p.processor.as_ref()) {
            processor.count(&mut sums);
        }
        let status = if self.stall.is_some() {
            RunStatus::Stalled
        } else if self.stopped_at_horizon {
            RunStatus::Horizon
        } else if self.end.is_some_and(|end| self.now >= end) {
            RunStatus::Duration
        } else {
            RunStatus::FlowsEnded
        };
        let end = RunEnd {
            now: self.now,
            events: self.event_count,
            wall: self.wall,
            flows: u64::from(self.numbered),
            flows_completed: self.completed,
            stopped_at_horizon: self.stopped_at_horizon,
            status,
            stall: self.stall.take(),
            packets_in_network: self.packets.live() + packets_elsewhere,
            transport: &self.transport,
            tally: self.tally,
            port_counters: names.iter().copied().zip(sums).collect(),
        };
        crate::report::results(&end, &self.net, records, self.obs)
    }

    /// The flow table's row of flow `id` as it stands now (final once the flow has ended).
    fn record_of(&self, id: FlowId, flow: &Flow) -> FlowRecord {
        let outcome = crate::observe::outcome_of(&self.flows, flow);
        crate::report::flow_record(id, flow, outcome, &self.net, self.now, self.run.measures(flow.plan.start))
    }

    /// Takes flow `id` out of the table if it is over for good: ended (both endpoints freed),
    /// no packet of it left in the network, and not part of a persistent connection (whose
    /// carrier keeps it). Its row goes to `records`, its routes to later flows.
    fn release_if_done(&mut self, id: FlowId) {
        if let Some(rounds) = self.rounds.as_deref_mut().filter(|r| r.current != BARRIER) {
            // Another part may still hold the flow's packets or ends: decided at the barrier.
            return rounds.releases.push(id);
        }
        if self.releasable(id, self.flows[id].in_flight) {
            self.release(id, true);
        }
    }

    /// Whether flow `id` is over for good (`release_if_done`) if `in_flight` of its packets are
    /// left in the network (a run on several threads counts them in every engine).
    fn releasable(&self, id: FlowId, in_flight: u32) -> bool {
        let flow = &self.flows[id];
        let over = flow.ends_freed() && flow.outcome.is_some() && in_flight == 0;
        self.releasing && over && flow.span.is_none() && flow.connection.is_none()
    }

    /// Takes flow `id`, over for good, out of the table, its row to `records` if `record` (the
    /// engine that keeps the results, on several threads), its routes to later flows.
    fn release(&mut self, id: FlowId, record: bool) {
        let flow = &self.flows[id];
        let row = record.then(|| self.record_of(id, flow));
        let routes = flow.routes();
        self.flows.remove(id);
        let released = match row {
            Some(row) => {
                self.tally.add(&row);
                reserve(&mut self.records, 1, "the flow records").map(|()| self.records.push(row))
            }
            None => Ok(()),
        };
        if let Err(e) = released.and_then(|()| self.net.release_routes(&routes)) {
            self.fail(e);
        }
    }

    /// A packet of flow `id` left the network (delivered, dropped or evicted).
    #[inline]
    fn packet_gone(&mut self, id: FlowId) {
        let flow = &mut self.flows[id];
        flow.in_flight = flow.in_flight.wrapping_sub(1);
        // On several threads each engine counts what entered and left its parts, and only the
        // sum over engines says whether any is left (`crate::sim::crew`).
        if flow.ends_freed() && (flow.in_flight == 0 || self.rounds.is_some()) {
            self.release_if_done(id);
        }
    }

    /// Flow `id` of `f` with its routes, not in the table yet. Scenario validation has checked
    /// what the flow may be (two distinct hosts of the topology; a persistent message on a
    /// TCP-family protocol; TCPpr's classes within the switches').
    fn new_flow(&mut self, id: FlowId, f: &FlowPlan) -> Result<Flow, ResourceError> {
        debug_assert!(f.src != f.dst && f.src.max(f.dst) < self.net.hosts(), "flow {}: {f:?}", id.0);
        let routes = self.net.add_routes(id.idx(), f.src, f.dst)?;
        let protocol = f.protocol.unwrap_or(self.transport.protocol);
        let plan = FlowPlan { priority: self.net.priority_of(protocol, f), ..*f };
        Ok(Flow::new(plan, protocol, routes))
    }

    /// Room for one more flow start, or an error if memory runs out.
    fn reserve_start(&mut self) -> Result<(), ResourceError> {
        self.starts.try_reserve(1).map_err(|_| ResourceError::allocation::<(Instant, u32, u32)>("the flow starts", self.starts.len() + 1))
    }

    /// Adds planned flow `id` to the table and queues its start.
    fn add_flow(&mut self, id: FlowId, f: &FlowPlan) -> Result<(), ResourceError> {
        // Room for this flow's entries, so that running out of memory is an error here.
        self.reserve_start()?;
        let flow = self.new_flow(id, f)?;
        self.flows.insert(id, flow)?;
        self.starts.push(Reverse((f.start, id.0, NO_SOURCE)));
        self.finite_remaining += u64::from(f.size_bytes.is_some());
        Ok(())
    }

    fn has_no_long_flows(&self) -> bool {
        // Long-lived flows require a duration (checked at load), which ends the run instead.
        self.end.is_none()
    }

    // Inlined into `step`, its one caller: as a call it cost the star incast 2.5% more instructions.
    #[inline(always)]
    fn dispatch(&mut self, event: Event) {
        // Arrivals first, then free serializers: nearly every event is one of the two, and tests
        // in that order are predicted where a jump table on the kind of event was not (issue
        // 41: a quarter of that jump's targets were mispredicted on the 40-sender star).
        if let Event::Arrive(port) = event {
            return self.on_arrive(port);
        }
        if let Event::TxDone(port) = event {
            return self.on_tx_done(port);
        }
        match event {
            Event::TxDone(port) => self.on_tx_done(port),
            Event::Arrive(port) => self.on_arrive(port),
            Event::SenderTimer(flow) => self.on_flow_timer(flow, Ends::Sender),
            Event::ReceiverTimer(flow) => self.on_flow_timer(flow, Ends::Receiver),
            Event::FlowStarts => self.on_flow_starts(),
            Event::SenderStarts(flow) => self.start_sender(flow),
            Event::ReceiverStarts(flow) => self.start_receiver(flow),
            Event::ProcessorTimer(port) => {
                self.on_processor_timer(port);
                match self.rounds.as_deref_mut() {
                    None => self.stop_if_stalled(),
                    // Tested between rounds, when every part has run up to the same instant.
                    Some(rounds) => rounds.stall_check_due = true,
                }
            }
            Event::Sample => {
                self.on_sample();
                match self.rounds.as_deref_mut() {
                    None => self.stop_if_stalled(),
                    // Tested at the next barrier, over every engine.
                    Some(rounds) => rounds.stall_check_due = true,
                }
            }
        }
    }

    /// Asks the CPU to start loading the port the next event works on while nothing waits for
    /// it: on a large network ports are rarely in cache, and the event's first touch of its port
    /// is otherwise a stall (issue 26's profile). Only a hint: the results do not depend on it.
    ///
    /// On a network whose ports outgrow the caches (`deep_prefetch`) it looks further ahead
    /// (`prefetch_ahead`). On a small network that costs more than it saves
    /// (`DEEP_PREFETCH_BYTES`), so there it looks one event ahead.
    #[inline]
    fn prefetch_next(&self) {
        if self.deep_prefetch {
            self.prefetch_ahead();
            return;
        }
        match self.events.peek() {
            Some(Event::Arrive(p)) => self.net.ports[p.idx()].prefetch_arrival(),
            Some(Event::TxDone(p)) => self.net.ports[p.idx()].prefetch_service(),
            _ => {}
        }
    }

    /// Software pipelining of the cache misses of the events to come (issue 26). On a large
    /// network a packet's hop is a chain of dependent misses: the port, its wire's head entry,
    /// the packet, its route entry, the next port, that port's queue. A prefetch of one link can
    /// only start once the previous link is loaded, so each event in the queue's lookahead window
    /// gets the step of its chain that matches its distance: the farthest event its port, the
    /// next one its wire's head, and so on, until the event about to run finds its chain loaded.
    /// Each step re-reads the links loaded by the steps before it (cache hits). Only hints: the
    /// results do not depend on them.
    #[inline]
    fn prefetch_ahead(&self) {
        for distance in 1..LOOKAHEAD {
            match self.events.peek_nth(distance) {
                Some(Event::Arrive(port)) => self.prefetch_arrival_step(port, LOOKAHEAD - distance),
                Some(Event::TxDone(port)) => self.prefetch_service_step(port, LOOKAHEAD - distance),
                Some(_) => {}
                None => break,
            }
        }
    }

    /// Step `step` (1 first) of the chain of an arrival at the far end of `port_id`'s wire.
    #[inline]
    fn prefetch_arrival_step(&self, port_id: PortId, step: usize) {
        let port = &self.net.ports[port_id.idx()];
        match step {
            1 => return port.prefetch_arrival(),
            2 => return port.prefetch_wire_head(),
            _ => {}
        }
        let Some(id) = port.next_arrival() else { return };
        let pkt = self.packets.get(id);
        if step == 3 {
            return crate::prefetch::lines(pkt);
        }
        let hop = pkt.route.hop + 1;
        if hop < pkt.route.len {
            // Forwarded: the next egress port on its route.
            let entry = &self.net.routes[(pkt.route.start + u32::from(hop)) as usize];
            if step == 4 {
                return crate::prefetch::line(entry);
            }
            let next = &self.net.ports[entry.idx()];
            match step {
                5 => next.prefetch_whole(),
                _ => {
                    next.prefetch_queue(pkt.priority);
                    next.prefetch_wire_tail();
                }
            }
        } else {
            // Delivered: its flow.
            match step {
                4 => self.flows.prefetch_slot_of(pkt.flow),
                5 => {
                    if let Some(flow) = self.flows.get(pkt.flow) {
                        crate::prefetch::lines(flow);
                    }
                }
                // Its endpoint's state: prefetching all of it (a TCP sender is 13 lines) was
                // measured no faster on the fat trees.
                _ => {}
            }
        }
    }

    /// Step `step` (1 first) of the chain of a free serializer at `port_id` taking its next
    /// packet.
    #[inline]
    fn prefetch_service_step(&self, port_id: PortId, step: usize) {
        let port = &self.net.ports[port_id.idx()];
        match step {
            1 => port.prefetch_service(),
            2 => port.prefetch_queue(0),
            3 => port.prefetch_queue_head(),
            4 => {
                if let Some(id) = port.next_to_serve() {
                    crate::prefetch::lines(self.packets.get(id));
                }
            }
            _ => port.prefetch_wire_tail(),
        }
    }

    /// Periodic events (router timers, sampling) never run out, so a run without a duration
    /// whose remaining flows can no longer act would otherwise never end: nothing on a wire or in
    /// a queue, no flow timer and no flow yet to start means no flow event can ever happen again.
    /// The run has stalled: its unfinished flows will never finish.
    fn stop_if_stalled(&mut self) {
        if self.end.is_none() && self.starts.is_empty() && self.quiet() {
            // Unfinished flows are left (else the run would have ended), and none can act again.
            self.stalled(Stalled::Deadlock { flows: self.running });
        }
    }

    /// Nothing of this engine's can act again: no packet in the network and no flow timer.
    fn quiet(&self) -> bool {
        let in_messages = self.rounds.as_deref().is_some_and(|r| r.sent_min != Instant::NEVER || r.starts_pending > 0);
        self.packets.live() == 0 && !in_messages && self.flows.slots().all(|f| f.sender_timer_at.is_none() && f.receiver_timer_at.is_none())
    }

    // ---- flows -------------------------------------------------------------------------------

    fn schedule_starts(&mut self) {
        if self.rounds.is_some() {
            return; // parts start their flows (`queue_starts_before`)
        }
        if let Some(&Reverse((t, _, _))) = self.starts.peek() {
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
        while let Some(&Reverse((t, f, source))) = self.starts.peek() {
            if t > self.now {
                break;
            }
            self.starts.pop();
            if source != NO_SOURCE {
                if let Err(e) = self.draw_from(source as usize) {
                    return self.fail(e);
                }
            }
            self.start_flow(FlowId(f));
        }
        self.schedule_starts();
    }

    /// Adds the next flow of Poisson or trace workload `source` to the table, to start now, and
    /// queues the start of the one after.
    fn draw_from(&mut self, source: usize) -> Result<(), ResourceError> {
        let (arrivals, next) = &mut self.sources[source];
        let (i, plan) = next.take().expect("a queued start of a source is its next flow");
        *next = arrivals.draw()?;
        let after = next.map(|(j, f)| (f.start, j));
        let flow = self.new_flow(FlowId(i), &plan)?;
        self.flows.insert(FlowId(i), flow)?;
        if let Some((t, j)) = after {
            self.reserve_start()?;
            self.starts.push(Reverse((t, j, source as u32)));
        }
        Ok(())
    }

    /// Flow `id` starts now (the one loop).
    fn start_flow(&mut self, id: FlowId) {
        let deadline = self.begin_flow(id, self.now);
        let flow = &mut self.flows[id];
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
        let (sender, receiver) = self.endpoints(id);
        let flow = &mut self.flows[id];
        (flow.sender, flow.receiver) = (Some(sender), Some(receiver));
        self.pump(id, Ends::Sender);
    }

    /// The run's record of flow `id` starting at `at`: it runs, its deadline counts from now.
    /// Returns its deadline.
    fn begin_flow(&mut self, id: FlowId, at: Instant) -> Option<Instant> {
        self.running += 1;
        if self.rounds.is_none() {
            self.watchdog.flow_started(self.running);
        }
        let flow = &mut self.flows[id];
        let deadline = flow.plan.deadline.map(|d| at + d);
        flow.started_at = Some(at);
        flow.deadline_at = deadline;
        flow.stalls.since = at;
        deadline
    }

    /// The two ends of flow `id`, starting now.
    fn endpoints(&self, id: FlowId) -> (crate::transport::Sender, crate::transport::Receiver) {
        let flow = &self.flows[id];
        let nic = self.net.topo.host_nic(flow.plan.src);
        let uplink = self.net.topo.ports[nic.idx()].link.rate;
        let start = FlowStart { flow: id, nic, protocol: flow.protocol, plan: &flow.plan, deadline: flow.plan.deadline.map(|d| self.now + d), now: self.now, uplink };
        self.net.setups.endpoints(&start)
    }

    /// A run cut into parts: queues the starts of the flows due before `bound` in the parts of
    /// their hosts this engine runs (`Event::SenderStarts`, `Event::ReceiverStarts`), so that
    /// flows start within rounds rather than cut them at each start. Every engine draws every
    /// flow (the same flows, in the same order: the table is every engine's).
    fn queue_starts_before(&mut self, bound: Instant) {
        while let Some(&Reverse((t, f, source))) = self.starts.peek() {
            if t >= bound {
                break;
            }
            self.starts.pop();
            if source != NO_SOURCE {
                if let Err(e) = self.draw_from(source as usize) {
                    return self.fail(e);
                }
            }
            let id = FlowId(f);
            let plan = self.flows[id].plan;
            let rounds = self.rounds.as_deref_mut().expect("a run cut into parts");
            if rounds.owns_host(plan.src) {
                rounds.queue(rounds.part_of_host(plan.src), t, Event::SenderStarts(id), &mut self.events);
                rounds.starts_pending += 1;
            }
            if rounds.owns_host(plan.dst) {
                rounds.queue(rounds.part_of_host(plan.dst), t, Event::ReceiverStarts(id), &mut self.events);
            }
        }
    }

    /// Flow `id` starts at its sender, in the sender's part (a run cut into parts); the other
    /// engines count it started at the barrier.
    #[cold]
    #[inline(never)]
    fn start_sender(&mut self, id: FlowId) {
        self.begin_flow(id, self.now);
        let rounds = self.rounds.as_deref_mut().expect("a run cut into parts");
        rounds.starts_pending -= 1;
        rounds.started.push((id, self.now));
        let (sender, _) = self.endpoints(id);
        self.flows[id].sender = Some(sender);
        self.pump(id, Ends::Sender);
    }

    /// Flow `id` starts at its receiver, in the receiver's part (a run cut into parts).
    #[cold]
    #[inline(never)]
    fn start_receiver(&mut self, id: FlowId) {
        let (_, receiver) = self.endpoints(id);
        self.flows[id].receiver = Some(receiver);
        let slot = self.flows.slot(id);
        self.arm_timer_here(id, slot);
    }

    /// Message `id` of `bytes`, due at `deadline`, starts on the open connection of `carrier`.
    fn push_message(&mut self, carrier: FlowId, id: FlowId, bytes: u64, deadline: Option<Instant>) {
        let now = self.now;
        let c = &mut self.flows[carrier];
        let span = c.connection.as_mut().expect("carriers keep their connection").push(carrier, id, bytes);
        c.sender.as_mut().expect("carriers keep their sender").push_message(now, bytes, deadline);
        self.flows[id].span = Some(span);
        self.pump(carrier, Ends::Sender);
    }

    /// Moves whatever the flow's end `ends` wants to send into its NIC and re-arms the flow's
    /// timers. Only an end that was just handed something can have new output, so the other is
    /// not polled.
    fn pump(&mut self, id: FlowId, ends: Ends) {
        // The flow's slot stays put while it runs: looked up once for all that follows.
        let slot = self.flows.slot(id);
        match ends {
            Ends::Sender => self.send_data(id, slot),
            Ends::Receiver => {
                self.send_acks(id, slot);
                self.wake_others();
            }
        }
        // A run cut into parts records a flow's rows in its sender's part only, so that they
        // follow its events alone (the engine that runs its receiver may not hold its sender).
        if self.obs.traces.is_some() && (self.rounds.is_none() || matches!(ends, Ends::Sender)) {
            self.trace(id);
        }
        self.rearm(id, slot);
    }

    /// Hands the sender's segments to its NIC while the NIC has room (else queues the flow to
    /// wait for it).
    fn send_data(&mut self, id: FlowId, slot: Slot) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[slot];
            let nic = self.net.routes[flow.forward.start as usize];
            let host = flow.plan.src as usize;
            if self.net.ports[nic.idx()].queue_bytes() >= self.net.host_backlog_bytes[host] {
                if !flow.blocked {
                    flow.blocked = true;
                    self.blocked[host].push_back(id);
                }
                break;
            }
            let sender = flow.sender.as_mut().expect("pumped flows have started");
            let Some(out) = sender.poll_transmit(now) else { break };
            let route = self.net.next_forward(id, flow.forward);
            let priority = flow.plan.priority;
            flow.in_flight = flow.in_flight.wrapping_add(1);
            self.inject(Packet::data(id, &out.seg, route, priority, out.header.as_ref()), out.header);
        }
    }

    /// Hands the receiver's ACKs to its NIC.
    fn send_acks(&mut self, id: FlowId, slot: Slot) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[slot];
            let receiver = flow.receiver.as_mut().expect("pumped flows have started");
            let Some(out) = receiver.poll_ack(now) else { break };
            let route = self.net.next_reverse(id, flow.reverse);
            let priority = flow.plan.priority;
            flow.in_flight = flow.in_flight.wrapping_add(1);
            self.inject(Packet::ack(id, &out.ack, out.ect, route, priority, out.header.as_ref()), out.header);
        }
    }

    /// Frees a flow whose both ends are done, or makes sure its next timer has an event.
    fn rearm(&mut self, id: FlowId, slot: Slot) {
        if self.rounds.is_some() {
            return self.rearm_in_parts(id, slot);
        }
        let flow = &mut self.flows[slot];
        let sender = flow.sender.as_ref().expect("pumped flows have started");
        if let Some(connection) = flow.connection.as_mut() {
            // A connection waits for its next message rather than retiring.
            let receiver = flow.receiver.as_ref().expect("carriers keep their receiver");
            if let Some((to, bytes, timeouts)) = connection.charge(&crate::transport::outcome(sender, receiver)) {
                let span = self.flows[to].span.as_mut().expect("messages have a span");
                span.retransmitted_bytes += bytes;
                span.timeouts += timeouts;
            }
            self.arm_timer(id, slot);
            return;
        }
        if sender.is_complete() {
            if flow.finished_at.is_none() {
                // The sender is done but the receiver never got every byte: the host gave up on
                // the flow (D3 quenching). It ends here for the run, without completing.
                flow.retire();
                self.on_flow_ended(id, false);
                self.release_if_done(id);
                return;
            }
            // Both ends are done: keep the outcome, free the endpoints (a long run holds
            // thousands of finished flows). Late duplicates are counted and discarded, and the
            // flow leaves the table once the last of them has.
            flow.retire();
            self.release_if_done(id);
            return;
        }
        self.arm_timer(id, slot);
    }

    /// `rearm` in a run cut into parts: an end acts only in its own part (the other's state is
    /// its part's), and a flow whose sender is done retires at the barrier (the receiver's
    /// part may still be acting on it). Out of line, so that the one loop's stays as it was.
    #[inline(never)]
    fn rearm_in_parts(&mut self, id: FlowId, slot: Slot) {
        let (sender_here, _) = self.ends_here(slot);
        let flow = &mut self.flows[slot];
        if sender_here && flow.sender.as_ref().is_some_and(crate::transport::Sender::is_complete) {
            if !flow.retiring {
                flow.retiring = true;
                flow.sender_timer_at = None;
                self.rounds.as_deref_mut().expect("a run cut into parts").retiring.push((id, self.now));
            }
            return;
        }
        self.arm_timer_here(id, slot);
    }

    /// Which ends of the flow in `slot` this engine acts on now, in a run cut into parts: those
    /// of the running part (or, between rounds, those this engine holds).
    fn ends_here(&self, slot: Slot) -> (bool, bool) {
        let rounds = self.rounds.as_deref().expect("a run cut into parts");
        let flow = &self.flows[slot];
        let (sender, receiver) = rounds.ends_here(flow.plan.src, flow.plan.dst);
        // An end starts in its own part, perhaps after the other in the same instant.
        (sender && flow.sender.is_some(), receiver && flow.receiver.is_some())
    }

    /// Makes sure the next timer of each end of a running flow has an event. Each end has its
    /// own (a sender's retransmission timer, a receiver's delayed ACK), as each would in a part
    /// of the network of its own (issue 41). Lazy timers: an earlier pending event is kept (it
    /// re-arms when it finds nothing due); a new one is queued only when the new deadline is
    /// earlier than what is pending, and never before the next instant.
    fn arm_timer(&mut self, id: FlowId, slot: Slot) {
        self.arm_ends(id, slot, true, true);
    }

    /// `arm_timer` in a run cut into parts: the ends of the running part only.
    #[inline(never)]
    fn arm_timer_here(&mut self, id: FlowId, slot: Slot) {
        let (sender_here, receiver_here) = self.ends_here(slot);
        self.arm_ends(id, slot, sender_here, receiver_here);
    }

    /// `arm_timer` for the ends `sender_here` and `receiver_here` say: constants in the one
    /// loop's call, where it folds to what it was before runs were cut into parts.
    #[inline(always)]
    fn arm_ends(&mut self, id: FlowId, slot: Slot, sender_here: bool, receiver_here: bool) {
        let next = self.now + Duration::from_ps(1);
        let flow = &mut self.flows[slot];
        let earlier = |due: Option<Instant>, pending: Option<Instant>| {
            due.map(|d| d.max(next)).filter(|&d| pending.is_none_or(|t| d < t))
        };
        let sender = match sender_here {
            true => earlier(flow.sender.as_ref().expect("pumped flows have started").poll_timeout(), flow.sender_timer_at),
            false => None,
        };
        let receiver = match receiver_here {
            true => earlier(flow.receiver.as_ref().expect("pumped flows have started").poll_timeout(), flow.receiver_timer_at),
            false => None,
        };
        if let Some(due) = sender {
            flow.sender_timer_at = Some(due);
            self.timer_event(Event::SenderTimer(id), due);
        }
        if let Some(due) = receiver {
            self.flows[slot].receiver_timer_at = Some(due);
            self.timer_event(Event::ReceiverTimer(id), due);
        }
    }

    /// Queues a flow timer `event` at `due` (its end's pending timer now).
    #[inline(always)]
    fn timer_event(&mut self, event: Event, due: Instant) {
        self.schedule(due, event);
        // A run cut into parts purges between rounds (`barrier`): a part must not drop another's
        // events while that one runs.
        if self.rounds.is_none() && self.events.timers_pending() >= self.purge_timers_at {
            self.purge_timers();
        }
    }

    /// Schedules a port's or a flow end's `event` at `time`: in the one queue, or in the part
    /// that runs it when the run is cut into parts (`crate::rounds`).
    #[inline(always)]
    fn schedule(&mut self, time: Instant, event: Event) {
        match self.rounds {
            None => self.events.push(time, event),
            Some(_) => self.schedule_in_parts(time, event),
        }
    }

    /// `schedule` in a run cut into parts (`Rounds::push`): an event of a part of this engine
    /// into the engine's queue, numbered as the running part's; another engine's as a message
    /// with its packet (`send_away`).
    #[inline(never)]
    fn schedule_in_parts(&mut self, time: Instant, event: Event) {
        let rounds = self.rounds.as_deref_mut().expect("a run cut into parts");
        let (flows, ports) = (&self.flows, &self.net.ports);
        let far_end = |p: PortId| (ports[p.idx()].receive_part, ports[p.idx()].receive_away);
        if let Pushed::Away { part, seq } = rounds.push(time, event, || host_of(flows, event), far_end, &mut self.events) {
            self.send_away(time, seq, event, part);
        }
    }

    /// Sends the arrival `event` at `time`, numbered `seq`, in part `part` of another engine (a
    /// run on several threads), with its packet: the one just put on the link, which leaves
    /// this engine.
    #[cold]
    #[inline(never)]
    fn send_away(&mut self, time: Instant, seq: u64, event: Event, part: u32) {
        let Event::Arrive(port) = event else { unreachable!("{event:?} for another engine: only arrivals cross") };
        let (at, id) = self.net.ports[port.idx()].take_last_sent();
        debug_assert_eq!(at, time, "the packet of the arrival is the last one sent");
        let (packet, header) = (*self.packets.get(id), self.packets.header(id).copied());
        self.packets.release(id);
        let rounds = self.rounds.as_deref_mut().expect("a run cut into parts");
        rounds.send(Message::new(time, seq, part, event), packet, header);
    }

    /// Wakes the flows a call on a receiver gave something to send (`Plugin::poll_wake`): each
    /// runs as if a timer were due at the next instant.
    #[inline]
    fn wake_others(&mut self) {
        while let Some(other) = self.net.setups.poll_wake() {
            self.wake(other);
        }
    }

    /// Flow `other`'s receiver timer event at the next instant, if it is still running and has
    /// none earlier (the lazy timers of `arm_timer`): its receiver was given something to send.
    #[cold]
    fn wake(&mut self, other: FlowId) {
        let due = self.now + Duration::from_ps(1);
        let Some(flow) = self.flows.get_mut(other).filter(|f| f.receiver.is_some()) else { return };
        if flow.receiver_timer_at.is_none_or(|t| due < t) {
            flow.receiver_timer_at = Some(due);
            self.timer_event(Event::ReceiverTimer(other), due);
        }
    }

    /// Drops the flow timer events that would do nothing when popped: those a flow has
    /// superseded by an earlier one (lazy timers leave them behind, as a SYN's 1 s RTO), and
    /// those of flows released since. A run of a million short flows would otherwise hold a
    /// million of them, as many as the flows started within the longest RTO. Dropping them
    /// leaves every other event in its order, so results are as before; only the count of
    /// events processed falls. Runs when the timers have doubled since the last purge, so the
    /// cost per timer stays constant.
    #[cold]
    #[inline(never)]
    fn purge_timers(&mut self) {
        let pending = self.drop_stale_timers();
        self.purge_timers_at = (2 * pending).max(self.purge_floor);
    }

    /// `purge_timers`' work: drops the stale timer events; returns how many timers are left.
    fn drop_stale_timers(&mut self) -> usize {
        let flows = &self.flows;
        let live = |t, event| match event {
            Event::SenderTimer(id) => flows.get(id).is_some_and(|f: &Flow| f.sender_timer_at == Some(t)),
            Event::ReceiverTimer(id) => flows.get(id).is_some_and(|f: &Flow| f.receiver_timer_at == Some(t)),
            _ => true,
        };
        self.events.purge_timers(live);
        self.events.timers_pending()
    }

    /// The timer of flow `id`'s `end` may be due: the end acts on it, then gets polled.
    fn on_flow_timer(&mut self, id: FlowId, end: Ends) {
        // A released flow's timer events are all stale: it retired before it left.
        let Some(flow) = self.flows.get_mut(id) else { return };
        let pending = match end {
            Ends::Sender => &mut flow.sender_timer_at,
            Ends::Receiver => &mut flow.receiver_timer_at,
        };
        if *pending != Some(self.now) {
            return; // stale: a different timer event is the live one
        }
        *pending = None;
        // The end's state: a retired flow's pending timers were cleared with it.
        match end {
            Ends::Sender => {
                let Some(sender) = flow.sender.as_mut() else { return };
                self.watchdog.timer_fired();
                sender.handle_timeout(self.now);
            }
            Ends::Receiver => {
                let Some(receiver) = flow.receiver.as_mut() else { return };
                self.watchdog.timer_fired();
                receiver.handle_timeout(self.now);
            }
        }
        self.pump(id, end);
    }

    /// A finite flow is over: it `completed` (the receiver holds every byte) or was abandoned.
    /// Either way its burst round may move on.
    fn on_flow_ended(&mut self, id: FlowId, completed: bool) {
        self.flows[id].stalls.close(self.now);
        if let Some(rounds) = self.rounds.as_deref_mut() {
            rounds.last_end = rounds.last_end.max(self.now);
            if rounds.current != BARRIER {
                rounds.ended.push((id, self.now));
            }
        }
        self.watchdog.progress(self.now);
        self.running -= 1;
        self.completed += u64::from(completed);
        self.finite_remaining -= 1;
        let workload = self.flows[id].plan.workload;
        if self.bursts[workload as usize].is_none() {
            return;
        }
        if let Some(rounds) = self.rounds.as_deref_mut() {
            // A run cut into parts: the round's ends reach every engine only at the barrier, in
            // no set order; the next round is drawn there (`draw_bursts`).
            rounds.burst_ends.push((self.now, id, workload));
            return;
        }
        self.burst_flow_ended(workload as usize);
    }

    /// A run cut into parts, at a barrier: the flow-burst flows that ended since the last one
    /// go to their workloads in the order of their ends, then of their numbers, so that a
    /// round's last (latest) end draws the next round, starting `round_gap` after it, as in the
    /// one loop; every engine draws the same flows. `round_gap` is at least the lookahead
    /// (`refused_in_parts`), so the round starts at or after the bound of the round just run.
    pub(super) fn draw_bursts(&mut self) {
        let Some(rounds) = self.rounds.as_deref_mut() else { return };
        let mut ends = std::mem::take(&mut rounds.burst_ends);
        ends.sort_unstable_by_key(|&(at, id, _)| (at, id));
        let now = self.now;
        for (at, _, workload) in ends {
            self.now = at;
            self.burst_flow_ended(workload as usize);
        }
        self.now = now;
    }

    /// A flow of flow-burst workload `workload` ended now: when it was its round's last, the
    /// next round's flows join the run.
    fn burst_flow_ended(&mut self, workload: usize) {
        let Some(burst) = self.bursts[workload].as_mut() else { return };
        let mut next = Vec::new();
        if burst.flow_completed(self.now, &mut next) {
            for f in &next {
                let id = FlowId(self.numbered);
                self.numbered += 1;
                if let Err(e) = self.add_flow(id, f) {
                    return self.fail(e);
                }
            }
            self.schedule_starts();
        }
    }

    // ---- packets -----------------------------------------------------------------------------

    /// A transport hands a packet to its host's NIC.
    fn inject(&mut self, packet: Packet, header: Option<Header>) {
        self.obs.counters.sent += 1;
        let id = self.packets.alloc(packet, header);
        self.enqueue(id);
    }

    /// Logs packet `id`'s offer to a logged `port` (`offer_log`), just after the port answered.
    /// What the packet found is what waits now less what the answer added: the packet itself if
    /// it was queued, and the victim it displaced put back; the packet was marked on arrival
    /// only if the port marked it, so otherwise its CE bit is the one it came with.
    #[cold]
    #[inline(never)]
    fn log_offer(&mut self, port: PortId, id: PacketId, admission: Admission) {
        let (mut queued_packets, mut queued_bytes) = self.net.ports[port.idx()].waiting();
        let pkt = self.packets.get(id);
        match admission {
            Admission::Dropped => {}
            Admission::Queued { .. } => {
                queued_packets -= 1;
                queued_bytes -= u64::from(pkt.wire_bytes);
            }
            Admission::QueuedEvicting { victim } => {
                queued_bytes = queued_bytes + u64::from(self.packets.get(victim).wire_bytes) - u64::from(pkt.wire_bytes);
            }
            // Logged before the payload leaves the packet: it joined whole, then lost `cut`.
            Admission::Trimmed { cut, .. } => {
                queued_packets -= 1;
                queued_bytes = queued_bytes + u64::from(cut) - u64::from(pkt.wire_bytes);
            }
            // Returned itself: it left nothing. A waiting packet returned: as one evicted.
            Admission::Returned { arrival: true, .. } => {}
            Admission::Returned { packet: victim, arrival: false, .. } => {
                queued_bytes = queued_bytes + u64::from(self.packets.get(victim).wire_bytes) - u64::from(pkt.wire_bytes);
            }
        }
        let ce_on_arrival = pkt.ce && admission != (Admission::Queued { marked: true });
        let offer = Offer { port, flow: pkt.flow, seq: pkt.seq, payload_bytes: pkt.len, queued_packets, queued_bytes, ce_on_arrival };
        if let Some(log) = self.obs.offer_log.as_mut() {
            log.record(self.now, &offer, admission);
        }
    }

    /// Offers a packet to the port at its route cursor, after the port's processor, if it has
    /// one, saw the packet's header.
    fn enqueue(&mut self, id: PacketId) {
        let now = self.now;
        let pkt = self.packets.get(id);
        let port_id = pkt.current_port(&self.net.routes);
        let port = &mut self.net.ports[port_id.idx()];
        // An idle port that neither processes nor logs what it is offered sends the packet on:
        // most hops of a network that is not congested, and every event's worth of work less.
        if port.processor.is_none() && !port.offers_logged {
            if let Some(arrival) = port.send_if_idle(now, id, pkt.wire_bytes, pkt.len > 0, &self.net.pools) {
                if let Some(t) = arrival {
                    self.schedule(t, Event::Arrive(port_id));
                }
                return;
            }
        }
        let answered = self.net.ports[port_id.idx()].processor.is_some() && self.process(port_id, id);
        let port = &mut self.net.ports[port_id.idx()];
        let pkt = self.packets.get(id);
        let arriving = Arriving {
            id,
            wire_bytes: pkt.wire_bytes,
            priority: pkt.priority,
            ect: pkt.ect,
            ce: pkt.ce,
            payload: pkt.len > 0,
            flow: pkt.flow,
            returned: pkt.returned,
        };
        let packets = &self.packets;
        let admission = port.offer(now, arriving, &mut self.net.pools, || packets.header(id));
        if admission == (Admission::Queued { marked: true }) {
            self.packets.get_mut(id).ce = true;
        }
        if port.offers_logged {
            self.log_offer(port_id, id, admission);
        }
        match admission {
            Admission::Dropped => {
                if answered {
                    let header = self.packets.header(id).expect("it answered the header");
                    let processor = self.net.ports[port_id.idx()].processor.as_mut().expect("it answered the header");
                    processor.on_dropped(now, header);
                }
                let flow = self.packets.get(id).flow;
                self.packets.release(id);
                self.packet_gone(flow);
            }
            Admission::Queued { .. } => {
                self.try_start_service(port_id);
            }
            Admission::QueuedEvicting { victim } => {
                let flow = self.packets.get(victim).flow;
                self.packets.release(victim);
                self.packet_gone(flow);
                self.try_start_service(port_id);
            }
            Admission::Trimmed { packet, cut } => {
                let pkt = self.packets.get_mut(packet);
                debug_assert_eq!(cut, pkt.len, "a trimmed packet loses its payload");
                pkt.wire_bytes -= cut;
                pkt.len = 0;
                self.try_start_service(port_id);
            }
            Admission::Returned { packet, cut, arrival } => {
                if !arrival {
                    self.try_start_service(port_id);
                }
                self.turn_back(port_id, packet, cut);
            }
        }
    }

    /// Packet `id`, returned by port `port_id`'s discipline `cut` bytes of payload lighter, turns
    /// around at the port's node onto its way back to the host that sent it
    /// (`Network::way_back`) and is offered at once to the first port of that way, as htsim's
    /// `Packet::bounce` sends it on along the reverse route (`network.cpp` lines 114-125). If no
    /// way back of its flow passes the node, it is lost there: a drop of the port.
    #[cold]
    #[inline(never)]
    fn turn_back(&mut self, port_id: PortId, id: PacketId, cut: u32) {
        let pkt = *self.packets.get(id);
        let flow = &self.flows[pkt.flow];
        let back = match pkt.kind {
            PacketKind::Data => flow.reverse,
            PacketKind::Ack => flow.forward,
        };
        match self.net.way_back(pkt.flow, pkt.kind, pkt.route, back) {
            Some(route) => {
                let pkt = self.packets.get_mut(id);
                debug_assert_eq!(cut, pkt.len, "a returned packet loses its payload");
                pkt.wire_bytes -= cut;
                pkt.len = 0;
                pkt.returned = true;
                pkt.route = route;
                self.enqueue(id);
            }
            None => {
                self.net.ports[port_id.idx()].counters.drops += 1;
                self.packets.release(id);
                self.packet_gone(pkt.flow);
            }
        }
    }

    /// Shows packet `id`'s header, if it has one, to the processors that see it at port
    /// `port_id` (`transport::Way`): the port's own as the packet leaves through it, or on its
    /// flow's way back the processor of the port that sends the flow's data from this node.
    /// Returns whether the port's processor must hear of a drop of the packet.
    #[inline]
    fn process(&mut self, port_id: PortId, id: PacketId) -> bool {
        let (pkt, header) = self.packets.with_header_mut(id);
        // A packet on its way back to its sender is neither going out nor an answer.
        let Some(header) = header.filter(|_| !pkt.returned) else { return false };
        match header.way(pkt.kind) {
            Some(Way::Out) => {
                let port = &mut self.net.ports[port_id.idx()];
                let view = port.view();
                let passage = Passage::new(self.now, pkt.flow, &view, &self.flows);
                port.processor.as_mut().expect("a port with a processor").on_out(&passage, header)
            }
            Some(Way::Back) => {
                let node = self.net.ports[port_id.idx()].info.node;
                pass_back(&mut self.net, &self.flows, self.now, pkt.flow, node, header);
                false
            }
            None => false,
        }
    }

    fn try_start_service(&mut self, port_id: PortId) {
        let packets = &self.packets;
        let service = self.net.ports[port_id.idx()].serve(self.now, &mut self.net.pools, |id| packets.get(id).wire_bytes);
        if let Some(t) = service.arrival {
            self.schedule(t, Event::Arrive(port_id));
        }
        if let Some(t) = service.wake {
            self.schedule(t, Event::TxDone(port_id));
        }
    }

    fn on_tx_done(&mut self, port_id: PortId) {
        if !self.net.ports[port_id.idx()].woken(self.now) {
            return; // superseded by an earlier wake (a port whose discipline paces)
        }
        self.try_start_service(port_id);
        let host = self.net.host_of_port[port_id.idx()];
        if host != u32::MAX {
            self.unblock_senders(host as usize, port_id);
        }
    }

    /// The NIC of `host` drained: let waiting flows send while it is below its backlog bound.
    fn unblock_senders(&mut self, host: usize, nic: PortId) {
        while self.net.ports[nic.idx()].queue_bytes() < self.net.host_backlog_bytes[host] {
            let Some(id) = self.blocked[host].pop_front() else { break };
            // A flow that ended while it waited may have left the table.
            let Some(flow) = self.flows.get_mut(id) else { continue };
            flow.blocked = false;
            if flow.sender.is_some() {
                self.pump(id, Ends::Sender);
            }
        }
    }

    fn on_arrive(&mut self, port_id: PortId) {
        self.obs.counters.hops += 1;
        let (id, next) = self.net.ports[port_id.idx()].pop_arrival();
        if let Some(t) = next {
            self.schedule(t, Event::Arrive(port_id));
        }
        if let Some(capture) = self.obs.capture.as_mut().filter(|c| c.ports[port_id.idx()]) {
            let pkt = self.packets.get(id);
            let plan = &self.flows[pkt.flow].plan;
            let header = self.packets.header(id).map(|h| self.net.setups.capture(h)).unwrap_or_default();
            let frame = Frame::of(pkt, header, plan.src, plan.dst, &self.transport.tcp);
            capture.record(self.now, port_id.0, &frame);
        }
        let pkt = self.packets.get_mut(id);
        pkt.route.hop += 1;
        if pkt.route.hop < pkt.route.len {
            self.enqueue(id);
        } else {
            let pkt = *pkt;
            let mut header = self.packets.header(id).copied();
            self.packets.release(id);
            if pkt.returned {
                return self.deliver_returned(&pkt, header.as_ref());
            }
            if let Some(h) = header.as_mut().filter(|h| h.way(pkt.kind) == Some(Way::Back)) {
                self.pass_back_at_host(port_id, pkt.flow, h);
            }
            self.deliver(&pkt, header.as_ref());
        }
    }

    /// A packet reached its destination host.
    fn deliver(&mut self, pkt: &Packet, header: Option<&Header>) {
        self.obs.counters.delivered += 1;
        let now = self.now;
        let id = pkt.flow;
        let flow = &mut self.flows[id];
        flow.in_flight = flow.in_flight.wrapping_sub(1);
        // A packet for an end that has retired is a late duplicate: the flow leaves the table if
        // it was the last of its packets.
        let ends = match pkt.kind {
            PacketKind::Data => {
                let Some(receiver) = flow.receiver.as_mut() else { return self.release_if_done(id) };
                let before = receiver.delivered_bytes();
                receiver.handle_data(now, pkt, header);
                let delivered = receiver.delivered_bytes();
                if delivered > before {
                    flow.stalls.on_progress(now);
                    self.watchdog.progress(now);
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
                let Some(sender) = flow.sender.as_mut() else { return self.release_if_done(id) };
                sender.handle_ack(now, pkt, header);
                Ends::Sender
            }
        };
        self.pump(id, ends);
    }

    /// A returned packet (`turn_back`) reached the host that sent it: it counts as delivered,
    /// to its own endpoint (the sender for data, the receiver for an ACK).
    #[cold]
    #[inline(never)]
    fn deliver_returned(&mut self, pkt: &Packet, header: Option<&Header>) {
        self.obs.counters.delivered += 1;
        let id = pkt.flow;
        let flow = &mut self.flows[id];
        flow.in_flight = flow.in_flight.wrapping_sub(1);
        let ends = match pkt.kind {
            PacketKind::Data => {
                let Some(sender) = flow.sender.as_mut() else { return self.release_if_done(id) };
                sender.handle_returned(self.now, pkt, header);
                Ends::Sender
            }
            PacketKind::Ack => {
                let Some(receiver) = flow.receiver.as_mut() else { return self.release_if_done(id) };
                receiver.handle_returned(self.now, pkt, header);
                Ends::Receiver
            }
        };
        self.pump(id, ends);
    }

    /// A packet of flow `id` on its way back reached its host over port `port_id`: the host's own
    /// NIC may send the flow's data too (PDQ schedules it there), so its processor sees the
    /// header before the endpoint does. Out of line: only transports whose headers travel back
    /// come here, and the others' delivery path stays as small as it was.
    #[cold]
    #[inline(never)]
    fn pass_back_at_host(&mut self, port_id: PortId, id: FlowId, header: &mut Header) {
        let host = self.net.ports[port_id.idx()].info.peer;
        pass_back(&mut self.net, &self.flows, self.now, id, host, header);
    }

    /// The receiver of connection `carrier` holds `delivered` bytes in order: every message
    /// they complete finishes now.
    fn on_messages_delivered(&mut self, carrier: FlowId, delivered: u64) {
        while let Some(m) = self.flows[carrier].connection.as_mut().and_then(|c| c.pop_delivered(delivered)) {
            self.flows[m].finished_at = Some(self.now);
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
        let Some(traces) = self.obs.traces.as_mut() else { return };
        let flow = &self.flows[id];
        if !traces.wants(id, flow.plan.workload, flow.plan.app) {
            return;
        }
        let Some(sender) = flow.sender.as_ref() else { return };
        if let Err(e) = traces.record(id, self.now, sender.trace()) {
            self.fail(e);
        }
    }

    fn on_processor_timer(&mut self, port_id: PortId) {
        if self.processor_timer_at[port_id.idx()] != Some(self.now) {
            return;
        }
        self.processor_timer_at[port_id.idx()] = None;
        self.watchdog.timer_fired();
        let port = &mut self.net.ports[port_id.idx()];
        let view = port.view();
        let processor = port.processor.as_mut().expect("timer of an attached processor");
        processor.handle_timeout(self.now, &view);
        if let Some(t) = processor.poll_timeout() {
            let t = t.max(self.now + Duration::from_ps(1));
            self.processor_timer_at[port_id.idx()] = Some(t);
            self.schedule(t, Event::ProcessorTimer(port_id));
        }
    }

    fn on_sample(&mut self) {
        let Some(sampling) = self.obs.sampling.as_mut() else { return };
        match sampling.take(self.now, &self.net.ports, &self.flows) {
            Ok(next) => self.events.push(next, Event::Sample),
            Err(e) => self.fail(e),
        }
    }

    /// Stops the run on `e`, which the current `step` returns.
    fn fail(&mut self, e: ResourceError) {
        self.failure = Some(e);
        self.done = true;
    }

    /// Packets queued or on a wire anywhere (for conservation checks).
    pub fn packets_in_network(&self) -> u64 {
        let held = |sim: &Simulation| sim.net.ports.iter().map(crate::port::Port::packets_held).sum::<u64>();
        let crew = self.crew.as_deref().map_or(0, |crew| crew.held(held));
        held(self) + crew
    }
}

/// A packet of flow `id` with `header` passes `node` on its way back: the processor of the port
/// that sends the flow's data from `node` sees it (PDQ's Algorithm 3 runs at the port whose list
/// holds the flow, though the ACK leaves by another). A packet that passes a node the data does
/// not (ECMP hashed the directions apart) is seen by none. Out of line, so that the enqueue path
/// of packets whose headers go out stays as it was.
#[inline(never)]
fn pass_back(net: &mut Network, flows: &FlowTable, now: Instant, id: FlowId, node: NodeId, header: &mut Header) {
    let r = flows[id].forward;
    let route = &net.routes[r.start as usize..(r.start + u32::from(r.len)) as usize];
    let Some(port) = route.iter().copied().find(|p| net.ports[p.idx()].info.node == node) else { return };
    let port = &mut net.ports[port.idx()];
    let view = port.view();
    if let Some(processor) = port.processor.as_mut() {
        processor.on_back(&Passage::new(now, id, &view, flows), header);
    }
}

/// Runs `scenario` to the end.
pub fn run(scenario: &Scenario) -> Result<RunResults, Error> {
    let mut sim = Simulation::new(scenario)?;
    while !sim.step(1 << 20)? {}
    Ok(sim.finish()?)
}

/// The host of a flow end's `event` (a flow's timer or start), or `None` for another event or
/// a flow that has left the table.
fn host_of(flows: &FlowTable, event: Event) -> Option<u32> {
    match event {
        Event::SenderTimer(id) | Event::SenderStarts(id) => flows.get(id).map(|f| f.plan.src),
        Event::ReceiverTimer(id) | Event::ReceiverStarts(id) => flows.get(id).map(|f| f.plan.dst),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::StallAfter;

    /// Runs a few thousand Poisson DCTCP flows (1 ms RTO, drops and timeouts) with stale timers
    /// purged whenever `purge_at` timers wait.
    fn run_purging(purge_at: usize) -> RunResults {
        run_to_end(POISSON_DCTCP, None, purge_at)
    }

    /// A few thousand Poisson DCTCP flows with a 1 ms RTO: drops and timeouts.
    const POISSON_DCTCP: &str = r#"
seed = 9
[topology]
kind = "star"
hosts = 12
link_rate = "10Gbps"
link_delay = "1us"
[switch]
buffer = "30pkts"
ecn_threshold = 15
[transport]
protocol = "dctcp"
min_rto = "1ms"
[[workload]]
kind = "poisson"
rate = 500000.0
size = { dist = "uniform", min = "1KB", max = "40KB" }
stop = "6ms"
"#;

    /// Runs the scenario `text` to its end, with the large network's event queue and prefetching
    /// as `large` says (or as the network's size says), stale timers purged whenever `purge_at`
    /// timers wait.
    fn run_to_end(text: &str, large: Option<bool>, purge_at: usize) -> RunResults {
        let scenario = crate::scenario::parse_toml(text, None).expect("valid");
        let mut sim = Simulation::build(&scenario, large, None).expect("builds");
        (sim.purge_timers_at, sim.purge_floor) = (purge_at, purge_at);
        while !sim.step(1 << 16).expect("runs") {}
        sim.finish().expect("finishes")
    }

    /// Runs Poisson DCTCP flows (drops, timeouts, many events at the same picosecond) on a
    /// k = 4 fat tree with the large network's event queue and prefetching or without, stale
    /// timers purged whenever `purge_at` timers wait.
    fn run_fat_tree(large: bool, purge_at: usize) -> RunResults {
        let text = format!("{FAT_TREE_K4}load = 0.7\nsize = \"web-search\"\nstop = \"3ms\"\n[run]\nduration = \"6ms\"\n");
        run_to_end(&text, Some(large), purge_at)
    }

    /// A k = 4 fat tree of 10 Gbps links and small buffers, DCTCP with a 200 us minimum RTO,
    /// and the start of a Poisson workload (its load, sizes and stop to follow).
    const FAT_TREE_K4: &str = r#"
seed = 5
[topology]
kind = "fat-tree"
k = 4
link_rate = "10Gbps"
link_delay = "1us"
[switch]
buffer = "20pkts"
ecn_threshold = 10
[transport]
protocol = "dctcp"
min_rto = "200us"
[[workload]]
kind = "poisson"
"#;

    /// Three 2 KB flows into host 0 of the 4-host 1 Gbps star under D3 whose ports' capacity is
    /// 1.25 units of the header's field (1 MB/s each at 1 Gbps): a flow alone could be granted a
    /// unit, but three share less than one each, every grant truncates to the base grant, and
    /// no flow ever sends a byte (issue 39). `run` holds the `[run]` keys.
    fn d3_starved(run: &str) -> String {
        format!(
            "[topology]\nkind = \"star\"\nhosts = 4\n[transport]\nprotocol = \"d3\"\n[d3]\ncapacity_min = 0.01\n\
             capacity_max = 0.01\n[[workload]]\nkind = \"flow-burst\"\nsenders = 3\nsize = \"2KB\"\n[run]\n{run}\n"
        )
    }

    /// Runs `scenario` to its end in steps of `step` events.
    fn run_stepped(scenario: &Scenario, step: u64) -> RunResults {
        let mut sim = Simulation::new(scenario).expect("builds");
        while !sim.step(step).expect("runs") {}
        sim.finish().expect("finishes")
    }

    fn parsed(text: &str) -> Scenario {
        crate::scenario::parse_toml(text, None).expect("valid")
    }

    /// The summary's values but the wall time.
    fn counts(r: &RunResults) -> crate::results::Summary {
        crate::results::Summary { wall_time_s: 0.0, ..r.summary.clone() }
    }

    #[test]
    fn a_run_whose_flows_get_nothing_through_stops_stalled_after_the_span() {
        let r = run_to_end(&d3_starved(""), None, MIN_TIMERS_PURGED);
        let s = &r.summary;
        // The flows start at 0 and nothing ever arrives: the test at 0 + 10 s (`"auto"` on 1 Gbps
        // with Linux's 1 s initial RTO) finds them running all along.
        assert_eq!((s.status, s.sim_time_s, s.flows_completed, s.stopped_at_horizon), (RunStatus::Stalled, 10.0, 0, false));
        assert!(r.flows.iter().all(|f| f.delivered_bytes == 0 && f.finish_s.is_none()));
        let stall = s.stall.as_ref().expect("why");
        assert_eq!(stall.keys, ["d3.capacity_max", "d3.capacity_min", "d3.base_rate"]);
        assert!(stall.reason.starts_with("no flow got a byte through for 10 s (none since the start) while 3 unfinished flows of D3 ran"), "{}", stall.reason);
    }

    #[test]
    fn the_watchdog_off_or_a_duration_lets_the_starved_run_go_on() {
        let off = run_to_end(&d3_starved("stall_after = \"off\"\nhorizon = \"30s\""), None, MIN_TIMERS_PURGED);
        assert_eq!((off.summary.status, off.summary.sim_time_s, off.summary.stall.is_some()), (RunStatus::Horizon, 30.0, false));
        let timed = run_to_end(&d3_starved("duration = \"30s\""), None, MIN_TIMERS_PURGED);
        assert_eq!((timed.summary.status, timed.summary.sim_time_s), (RunStatus::Duration, 30.0));
        // A shorter span stops it sooner.
        let short = run_to_end(&d3_starved("stall_after = \"50ms\""), None, MIN_TIMERS_PURGED);
        assert_eq!((short.summary.status, short.summary.sim_time_s), (RunStatus::Stalled, 0.05));
    }

    #[test]
    fn where_a_run_stalls_does_not_depend_on_how_it_is_stepped() {
        let scenario = parsed(&d3_starved(""));
        let whole = run_stepped(&scenario, u64::MAX);
        for step in [1, 977, 1 << 16] {
            let stepped = run_stepped(&scenario, step);
            assert_eq!(counts(&stepped), counts(&whole), "steps of {step}");
            assert_eq!(stepped.flows, whole.flows);
            assert_eq!(stepped.ports, whole.ports);
        }
    }

    #[test]
    fn an_idle_gap_between_flows_is_no_stall() {
        // Nothing runs between 0.01 s and 30 s, three times the span: no flow is waiting on the
        // network then, only on its start.
        let text = "[topology]\nkind = \"star\"\nhosts = 4\n[[workload]]\nkind = \"flows\"\nflows = [\
                    { src = 1, dst = 0, size = \"20KB\", start = \"0s\" }, { src = 2, dst = 0, size = \"20KB\", start = \"30s\" }]\n";
        let r = run_to_end(text, None, MIN_TIMERS_PURGED);
        assert_eq!((r.summary.status, r.summary.flows_completed, r.summary.stall.is_some()), (RunStatus::FlowsEnded, 2, false));
        assert!(r.summary.sim_time_s > 30.0);
    }

    #[test]
    fn timers_that_fire_faster_than_any_packet_stop_the_run() {
        // pFabric's fixed timer at 1 ps, which validation refuses (`pfabric.rto`): every flow's
        // timer fires every picosecond, 40 M times per 20 us simulated (issue 39).
        let mut scenario = parsed(
            "[topology]\nkind = \"star\"\nhosts = 4\n[transport]\nprotocol = \"pfabric\"\n\
             [[workload]]\nkind = \"flow-burst\"\nsenders = 3\nsize = \"2KB\"\n",
        );
        scenario.sections.pfabric.rto = Duration::from_ps(1);
        let r = run_stepped(&scenario, 1 << 16);
        let s = &r.summary;
        assert_eq!(s.status, RunStatus::Stalled);
        // Seen at the first test, after 2^20 events, a few microseconds in.
        assert_eq!(s.events, crate::watchdog::EVENTS_PER_CHECK);
        assert!(s.sim_time_s < 1e-5, "{}", s.sim_time_s);
        let stall = s.stall.as_ref().expect("why");
        assert_eq!(stall.keys, ["pfabric.rto", "pfabric.buffer"]);
        assert!(stall.reason.starts_with("timers fired "), "{}", stall.reason);
        // Off, the same run is still at it far beyond that.
        scenario.run.stall_after = StallAfter::Off;
        let mut sim = Simulation::new(&scenario).expect("builds");
        assert!(!sim.step(4 * crate::watchdog::EVENTS_PER_CHECK).expect("runs"));
    }

    #[test]
    fn the_watchdog_changes_nothing_in_a_run_that_moves_and_sees_a_silence_longer_than_its_span() {
        // Poisson DCTCP flows with drops and 1 ms timeouts, no duration. By 9.1 ms every flow but
        // 170 has ended, and those lost their SYNs: they wait for Linux's 1 s initial RTO, and
        // nothing gets through until then.
        let with = |stall_after: &str| run_stepped(&parsed(&format!("{POISSON_DCTCP}\n[run]\nstall_after = \"{stall_after}\"\n")), 1 << 12);
        let unwatched = with("off");
        let watched = with("1s");
        assert!(unwatched.summary.timeouts > 0 && unwatched.summary.sim_time_s > 1.0);
        assert_eq!(counts(&watched), counts(&unwatched));
        assert_eq!(watched.flows, unwatched.flows);
        assert_eq!(watched.ports, unwatched.ports);
        assert_eq!(watched.summary.status, RunStatus::FlowsEnded);
        // Half a second of that silence is a stall.
        let strict = with("500ms");
        let last = unwatched.flows.iter().filter_map(|f| f.finish_s).filter(|&t| t < 0.5).fold(0.0, f64::max);
        assert_eq!(strict.summary.status, RunStatus::Stalled);
        assert!((strict.summary.sim_time_s - (last + 0.5)).abs() < 1e-9, "{} {last}", strict.summary.sim_time_s);
        let stall = strict.summary.stall.as_ref().expect("why");
        assert!(stall.reason.contains("170 unfinished flows of DCTCP"), "{}", stall.reason);
    }

    #[test]
    fn a_large_networks_event_queue_runs_the_same_events_in_the_same_order() {
        for purge_at in [usize::MAX, 16] {
            let heaps = run_fat_tree(false, purge_at);
            let calendar = run_fat_tree(true, purge_at);
            assert!(heaps.summary.timeouts > 0 && heaps.summary.packets_dropped > 0, "timers fire and ports drop");
            assert_eq!(calendar.flows, heaps.flows);
            assert_eq!(calendar.ports, heaps.ports);
            let counts = |r: &RunResults| crate::results::Summary { wall_time_s: 0.0, ..r.summary.clone() };
            assert_eq!(counts(&calendar), counts(&heaps), "the same events, purge at {purge_at}");
        }
    }

    #[test]
    fn purging_stale_timers_changes_nothing_but_the_events_counted() {
        let never = run_purging(usize::MAX);
        let often = run_purging(16);
        assert!(never.summary.timeouts > 0, "timers fire as well as go stale");
        assert!(often.summary.events < never.summary.events, "the purge dropped stale timers");
        assert_eq!(often.flows, never.flows);
        assert_eq!(often.ports, never.ports);
        let counts = |r: &RunResults| crate::results::Summary { events: 0, wall_time_s: 0.0, ..r.summary.clone() };
        assert_eq!(counts(&often), counts(&never));
    }

    /// Runs `scenario` cut into parts on one engine, in steps of `step`.
    fn run_in_parts(scenario: &Scenario, step: u64) -> RunResults {
        let mut sim = Simulation::in_parts(scenario).expect("can be cut");
        assert!(sim.rounds.is_some(), "more than one part");
        while !sim.step(step).expect("runs") {}
        sim.finish().expect("finishes")
    }

    /// Poisson DCTCP flows on a k = 4 fat tree (20 parts, 1 us apart) that drop packets, time
    /// out and end at the same picoseconds, with the queues sampled.
    fn fat_tree_poisson() -> String {
        fat_tree_poisson_until("2ms", QUEUE_SAMPLES)
    }

    /// The queue sampling of `fat_tree_poisson`.
    const QUEUE_SAMPLES: &str = "queue_sample_interval = \"50us\"\nqueue_sample_hosts = [0, 5, 12]\n";

    /// `fat_tree_poisson` with arrivals until `stop` and `output` as its `[output]` keys.
    fn fat_tree_poisson_until(stop: &str, output: &str) -> String {
        format!(
            "{FAT_TREE_K4}load = 0.7\nsize = {{ dist = \"uniform\", min = \"1KB\", max = \"60KB\" }}\nstop = \"{stop}\"\n\
             [output]\n{output}"
        )
    }

    /// `parts` parts dealt at random from `seed` to `engines` engines, each getting one at least
    /// (a linear congruential generator; leaked, as `Cut::deal` wants, a few bytes a test).
    fn dealt(parts: u32, engines: u32, seed: u64) -> &'static [u32] {
        let mut x = seed;
        let mut deal: Vec<u32> = (0..parts)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (x >> 33) as u32 % engines
            })
            .collect();
        for e in 0..engines {
            deal[e as usize] = e; // no engine idle
        }
        Box::leak(deal.into_boxed_slice())
    }

    #[test]
    fn a_run_cut_into_parts_runs_the_same_in_any_steps_and_its_flows_as_the_one_loop() {
        let scenario = parsed(&fat_tree_poisson());
        let parts = crate::Partition::of(&Simulation::new(&scenario).expect("builds").net.topo).parts;
        assert_eq!(parts, 20, "8 ToRs with their hosts, 8 aggregation switches, 4 cores");
        let reference = run_in_parts(&scenario, u64::MAX);
        let s = &reference.summary;
        assert!(s.timeouts > 0 && s.packets_dropped > 0 && s.flows_completed > 100, "{s:?}");
        assert!(!reference.queues.is_empty(), "sampled between rounds");
        for step in [1, 977] {
            let stepped = run_in_parts(&scenario, step);
            assert_eq!(stepped.flows, reference.flows, "steps of {step}");
            assert_eq!(stepped.queues, reference.queues, "steps of {step}");
            assert_eq!(counts(&stepped), counts(&reference), "steps of {step}");
        }
        // The same flows as the one loop runs, in another order of events of the same instant:
        // every flow ends, and the counts are close.
        let whole = run_to_end(&fat_tree_poisson(), None, MIN_TIMERS_PURGED);
        assert_eq!(whole.flows.len(), reference.flows.len());
        assert_eq!(whole.summary.flows_completed, s.flows_completed);
    }

    #[test]
    fn a_star_is_one_part_and_runs_as_one_loop() {
        let scenario = parsed(POISSON_DCTCP);
        let sim = Simulation::in_parts(&scenario).expect("can be cut");
        assert!(sim.rounds.is_none());
        let whole = run_stepped(&scenario, u64::MAX);
        let mut sim = sim;
        while !sim.step(u64::MAX).expect("runs") {}
        let parted = sim.finish().expect("finishes");
        assert_eq!(parted.flows, whole.flows);
        assert_eq!(counts(&parted), counts(&whole));
    }

    #[test]
    fn closed_loop_flow_bursts_run_the_same_on_any_number_of_threads_each_round_a_gap_after_the_last_end() {
        // Workers in every pod answer host 0, round after round, beside Poisson flows; each
        // round's last end, seen in the receiver's part, reaches the other engines only at the
        // barrier, where the next round is drawn.
        // Links of 20 us, so that a round (of at most the 20 us lookahead) sees several ends of
        // one burst round, whose latest must start the next.
        let unsampled = fat_tree_poisson()
            .replace("[output]\nqueue_sample_interval = \"50us\"\nqueue_sample_hosts = [0, 5, 12]\n", "")
            .replace("link_delay = \"1us\"", "link_delay = \"20us\"")
            .replace("min_rto = \"200us\"", "min_rto = \"2ms\"");
        let text = format!(
            "{unsampled}[[workload]]\nkind = \"flow-burst\"\naggregator = 0\nworker_hosts = [3, 6, 9, 12, 15]\nsenders = 10\nsize = \"20KB\"\nrounds = 40\nround_gap = \"27us\"\n"
        );
        let scenario = parsed(&text);
        let one = run_on_threads(&scenario, 1, u64::MAX);
        let bursts: Vec<&FlowRecord> = one.flows.iter().filter(|f| f.workload == 1).collect();
        assert_eq!(bursts.len(), 400, "every round ran");
        for round in 1..40 {
            let last_end = bursts.iter().filter(|f| f.round == round - 1).map(|f| f.finish_s.expect("finished")).fold(0.0, f64::max);
            for f in bursts.iter().filter(|f| f.round == round) {
                assert!((f.start_s - (last_end + 27e-6)).abs() < 1e-12, "round {round} starts 27 us after round {}'s last end", round - 1);
            }
        }
        for threads in [2, 3] {
            let other = run_on_threads(&scenario, threads, u64::MAX);
            assert_eq!(other.flows, one.flows, "{threads} threads");
            assert_eq!(other.ports, one.ports, "{threads} threads");
            assert_eq!(counts(&other), counts(&one), "{threads} threads");
        }
        let other = run_dealt(&scenario, 3, Some(dealt(20, 3, 9)), u64::MAX);
        assert_eq!(other.flows, one.flows, "dealt");
    }

    /// What `incast check` asks of a scenario with `[run] threads` (`check_parts`): the run's
    /// rule; a network of one part refuses nothing, nor does a scenario without `threads`.
    #[test]
    fn checking_threads_refuses_what_the_run_would() {
        let burst = |topology: &str, gap: &str| {
            parsed(&format!(
                "[run]\nthreads = 2\n[topology]\n{topology}\n[[workload]]\nkind = \"flow-burst\"\nsenders = 3\nrounds = 4\nround_gap = \"{gap}\"\n"
            ))
        };
        let fat_tree = "kind = \"fat-tree\"\nk = 4\nlink_delay = \"5us\"";
        let Err(Error::Scenario(e)) = check_parts(&burst(fat_tree, "2us")) else { panic!("a gap below the lookahead") };
        assert_eq!(e.path, "workload[0].round_gap");
        assert!(e.message.contains("at least the least delay of a link between parts (5.000us)"), "{e}");
        let run = Simulation::on_threads(&burst(fat_tree, "2us"), 2, None).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(run, e.to_string(), "the run refuses it alike");
        check_parts(&burst(fat_tree, "5us")).expect("a gap of the lookahead");
        check_parts(&burst("kind = \"star\"\nhosts = 4", "0s")).expect("a star is one part: never cut");
        let mut unthreaded = burst(fat_tree, "2us");
        unthreaded.run.threads = None;
        check_parts(&unthreaded).expect("no threads");
        // An OLDI workload's persistent connections, named by the key the file has.
        let oldi = |connections: &str| {
            parsed(&format!(
                "[run]\nthreads = 2\nduration = \"20ms\"\n[topology]\nkind = \"two-tier\"\nracks = 4\nhosts_per_rack = 10\n\
                 [[workload]]\nkind = \"oldi\"\nfan_in = 5\nutilization = 0.1\nconnections = \"{connections}\"\n"
            ))
        };
        let Err(Error::Scenario(e)) = check_parts(&oldi("persistent")) else { panic!("persistent connections") };
        assert_eq!((e.path.as_str(), e.message.as_str()), ("workload[0].connections", "a run cut into parts cannot have persistent connections (whose messages' ends meet in one connection object, not only through packets) yet; set connections = \"per-message\", or leave [run] threads unset"));
        check_parts(&oldi("per-message")).expect("a connection per message");
    }

    /// Links without delay join switches into one part: `threads_warning` says the run uses
    /// fewer threads than asked, where the scenario's own warning (which counts switches) does
    /// not; the run's partition says the same as check's.
    #[test]
    fn threads_above_the_parts_that_links_without_delay_leave_are_warned() {
        let fat_tree = |delay: &str, threads: u32| {
            parsed(&format!(
                "[run]\nthreads = {threads}\n[topology]\nkind = \"fat-tree\"\nk = 4\nlink_delay = \"{delay}\"\n[[workload]]\nkind = \"flow-burst\"\nsenders = 3\nsize = \"2KB\"\n"
            ))
        };
        let warned = |s: &Scenario| check_parts(s).expect("nothing refused").and_then(|p| threads_warning(s, &p)).map(|w| (w.path, w.message));
        let (key, message) = warned(&fat_tree("0s", 2)).expect("one part");
        assert_eq!(key, "run.threads");
        assert!(message.starts_with("asks for 2 threads, but links without delay join this network's 20 switches into one part, so the run is the one event loop, on one thread"), "{message}");
        assert_eq!(warned(&fat_tree("1us", 2)), None, "20 parts");
        // More threads than switches: the scenario's own warning says so, this one does not.
        assert_eq!(warned(&fat_tree("0s", 64)), None);
        assert!(fat_tree("0s", 64).warnings.iter().any(|w| w.path == "run.threads"));
        let sim = Simulation::new(&fat_tree("0s", 2)).expect("builds");
        assert_eq!(threads_warning(&fat_tree("0s", 2), &sim.partition()).map(|w| w.message), Some(message));
    }

    #[test]
    fn what_a_part_cannot_share_is_refused_naming_its_key() {
        let burst = "[topology]\nkind = \"fat-tree\"\nk = 4\nlink_delay = \"2us\"\n[[workload]]\nkind = \"flow-burst\"\nsenders = 3\nsize = \"2KB\"\nrounds = 2\nround_gap = \"1us\"\n";
        let e = Simulation::in_parts(&parsed(burst)).err().expect("refused");
        assert!(e.starts_with("`workload[0].round_gap`: a closed-loop flow-burst workload in a run cut into parts needs `round_gap` at least the least delay of a link between parts (2.000us)"), "{e}");
        assert!(e.ends_with("it is 1.000us"), "{e}");
        let homa = fat_tree_poisson().replace("protocol = \"dctcp\"", "protocol = \"homa\"").replace("ecn_threshold = 10", "priority_classes = 8");
        let e = Simulation::in_parts(&parsed(&homa)).err().expect("refused");
        assert!(e.starts_with("`homa.ack`: a run cut into parts cannot have Homa flows without ACKs"), "{e}");
        Simulation::in_parts(&parsed(&format!("{homa}[homa]\nack = true\n"))).map(drop).expect("Homa with ACKs is cut");
    }

    /// The fat tree's scenario `text` with `protocol`'s flows, to 4 ms (PDQ's last flows
    /// otherwise wait seconds for their probes' timer), priority classes for those that need them.
    fn fat_tree_of(protocol: &str, text: &str) -> Scenario {
        let text = text.replace("protocol = \"dctcp\"", &format!("protocol = \"{protocol}\""));
        let text = format!("{text}[run]\nduration = \"4ms\"\n");
        let text = match protocol {
            "pfabric" | "ndp" => text.replace("ecn_threshold = 10", "ecn_threshold = 10\npriority_classes = 8"),
            // Homa without ACKs cannot be cut (`Plugin::unsplit`).
            "homa" => format!("{}[homa]\nack = true\n", text.replace("ecn_threshold = 10", "priority_classes = 8")),
            _ => text,
        };
        crate::scenario::parse_toml(&text, None).unwrap_or_else(|e| panic!("{protocol}: {e}"))
    }

    /// Runs `scenario` on `threads` threads in steps of `step` events, its parts dealt to them as
    /// `deal` says (as `Partition::assign` does if `None`).
    fn run_dealt(scenario: &Scenario, threads: u32, deal: Option<&'static [u32]>, step: u64) -> RunResults {
        let mut sim = Simulation::on_threads(scenario, threads, deal).expect("builds");
        assert_eq!(sim.threads(), Some(threads as usize));
        while !sim.step(step).expect("runs") {}
        sim.finish().expect("finishes")
    }

    /// Runs `scenario` on `threads` threads in steps of `step` events.
    fn run_on_threads(scenario: &Scenario, threads: u32, step: u64) -> RunResults {
        let mut scenario = scenario.clone();
        scenario.run.threads = Some(crate::scenario::Threads::Count(threads));
        let mut sim = Simulation::new(&scenario).expect("builds");
        assert_eq!(sim.threads(), Some(threads as usize));
        while !sim.step(step).expect("runs") {}
        sim.finish().expect("finishes")
    }

    #[test]
    fn any_number_of_threads_gives_the_same_results_bit_for_bit() {
        let scenario = parsed(&fat_tree_poisson());
        let one = run_on_threads(&scenario, 1, u64::MAX);
        assert!(!one.queues.is_empty(), "queues sampled");
        let s = &one.summary;
        assert!(s.timeouts > 0 && s.packets_dropped > 0 && s.flows_completed > 100, "{s:?}");
        // One thread is the round loop of one engine.
        let parted = run_in_parts(&scenario, u64::MAX);
        assert_eq!(parted.flows, one.flows);
        assert_eq!(counts(&parted), counts(&one));
        for threads in [2, 3, 4, 8] {
            let other = run_on_threads(&scenario, threads, u64::MAX);
            assert_eq!(other.flows, one.flows, "{threads} threads");
            assert_eq!(other.ports, one.ports, "{threads} threads");
            assert_eq!(other.queues, one.queues, "{threads} threads");
            assert_eq!(counts(&other), counts(&one), "{threads} threads");
        }
        // Nor on which engine runs which part: each engine's parts' events interleave in its
        // queue, so a part that read what another wrote in the same round would show here.
        for seed in [1, 2, 3] {
            let other = run_dealt(&scenario, 3, Some(dealt(20, 3, seed)), u64::MAX);
            assert_eq!(other.flows, one.flows, "deal {seed}");
            assert_eq!(other.ports, one.ports, "deal {seed}");
            assert_eq!(other.queues, one.queues, "deal {seed}");
            assert_eq!(counts(&other), counts(&one), "deal {seed}");
        }
        let stepped = run_on_threads(&scenario, 2, 977);
        assert_eq!(stepped.flows, one.flows, "steps of 977");
        assert_eq!(counts(&stepped), counts(&one), "steps of 977");
        // Steps of one event each (a step ends after a whole round, and each spawns the crew's
        // threads), on the first flows: 2 ms of arrivals took 5 s of a debug build this way.
        let first = parsed(&fat_tree_poisson_until("300us", QUEUE_SAMPLES));
        let one = run_on_threads(&first, 1, u64::MAX);
        assert!(one.summary.packets_dropped > 0 && one.summary.flows_completed > 20, "{:?}", one.summary);
        let stepped = run_on_threads(&first, 2, 1);
        assert_eq!(stepped.flows, one.flows, "steps of 1");
        assert_eq!(counts(&stepped), counts(&one), "steps of 1");
    }

    #[test]
    fn every_transport_that_can_be_cut_runs_the_same_on_any_number_of_threads() {
        for protocol in ["d3", "pdq", "pfabric", "ndp", "homa"] {
            let scenario = fat_tree_of(protocol, &fat_tree_poisson());
            let one = run_on_threads(&scenario, 1, u64::MAX);
            assert!(one.summary.flows_completed > 100, "{protocol}: {:?}", one.summary);
            let three = run_on_threads(&scenario, 3, u64::MAX);
            assert_eq!(three.flows, one.flows, "{protocol}");
            assert_eq!(three.ports, one.ports, "{protocol}");
            assert_eq!(three.queues, one.queues, "{protocol}");
            assert_eq!(counts(&three), counts(&one), "{protocol}");
            let dealt = run_dealt(&scenario, 2, Some(dealt(20, 2, 7)), u64::MAX);
            assert_eq!(dealt.flows, one.flows, "{protocol}, dealt");
            assert_eq!(dealt.ports, one.ports, "{protocol}, dealt");
            assert_eq!(counts(&dealt), counts(&one), "{protocol}, dealt");
        }
    }

    #[test]
    fn throughput_samples_are_the_same_on_any_number_of_threads_and_a_star_runs_on_one() {
        // Each sample reads both ends of every flow, which live in different engines.
        let scenario = parsed(&format!("{}flow_throughput_interval = \"100us\"\n", fat_tree_poisson()));
        let one = run_on_threads(&scenario, 1, u64::MAX);
        assert!(one.throughput.as_ref().is_some_and(|t| t.flow_id.len() > 1000), "sampled");
        for threads in [2, 3] {
            let other = run_on_threads(&scenario, threads, u64::MAX);
            assert_eq!(other.throughput, one.throughput, "{threads} threads");
            assert_eq!(other.queues, one.queues, "{threads} threads");
            assert_eq!(other.flows, one.flows, "{threads} threads");
        }
        let mut star = parsed(POISSON_DCTCP);
        star.run.threads = Some(crate::scenario::Threads::Count(4));
        let sim = Simulation::new(&star).expect("builds");
        assert!(sim.rounds.is_none() && sim.threads().is_none(), "a star is one part: the one loop");
    }

    #[test]
    fn traces_are_the_same_on_any_number_of_threads() {
        // A flow's rows are recorded in its sender's part; the engines' rows joined and ordered
        // by time and flow. Workload 0's flows all, and two picked by the API.
        let scenario = parsed(&fat_tree_poisson_until("2ms", "trace_workloads = [0]\n"));
        assert!(scenario.output.queue_samples.is_none());
        let run = |scenario: &Scenario, threads: u32| -> Result<RunResults, ResourceError> {
            let mut sim = Simulation::on_threads(scenario, threads, None).expect("builds");
            sim.trace_flows(&[3, 40]).expect("flows of the run");
            while !sim.step(u64::MAX)? {}
            sim.finish()
        };
        let one = run(&scenario, 1).expect("runs");
        let rows = one.traces.as_ref().map_or(0, |t| t.flow_id.len());
        assert!(rows > 10_000, "{rows} rows");
        for threads in [2, 3] {
            let other = run(&scenario, threads).expect("runs");
            assert_eq!(other.traces, one.traces, "{threads} threads");
            assert_eq!(other.flows, one.flows, "{threads} threads");
        }
        // Within `run.max_samples` together, as on one thread.
        let mut few = scenario.clone();
        few.run.max_samples = rows as u64 - 1;
        for threads in [1, 2] {
            let e = run(&few, threads).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains("limit of trace rows"), "{threads} threads: {e}");
        }
    }

    #[test]
    fn offer_logs_are_the_same_on_any_number_of_threads_and_cut_where_one_would() {
        // Each port's offers are logged in its part; the engines' rows joined and ordered by
        // time, then port.
        let logged = |max_rows: u64| {
            parsed(&fat_tree_poisson_until("2ms", &format!("offer_log_ports = [\"*\"]\noffer_log_max_rows = {max_rows}\n")))
        };
        let log_of = |r: &RunResults| r.offer_log.clone().expect("an offer log");
        let all = run_on_threads(&logged(10_000_000), 1, u64::MAX);
        let full = log_of(&all);
        let rows = full.time_s.len();
        assert!(rows > 10_000 && full.missed == 0, "{rows} rows");
        assert!(full.time_s.windows(2).all(|w| w[0] <= w[1]), "in time order");
        for threads in [2, 3] {
            let other = run_on_threads(&logged(10_000_000), threads, u64::MAX);
            assert_eq!(log_of(&other), full, "{threads} threads");
            assert_eq!(other.flows, all.flows, "{threads} threads");
        }
        let dealt_log = log_of(&run_dealt(&logged(10_000_000), 3, Some(dealt(20, 3, 5)), u64::MAX));
        assert_eq!(dealt_log, full, "dealt");
        // A limit that falls inside an instant, after its first offer, early enough that each of
        // 3 engines reaches it: the whole log's first rows, the rest missed (`OfferLog`'s own
        // tests check the rule for an instant whose offers came out of port order).
        for limit in cuts_inside_instants(&full.time_s, |i| full.port[i] != full.port[i + 1]) {
            let mut first = full.clone();
            first.time_s.truncate(limit);
            first.port.truncate(limit);
            first.flow_id.truncate(limit);
            first.seq.truncate(limit);
            first.payload_bytes.truncate(limit);
            first.queued_packets.truncate(limit);
            first.queued_bytes.truncate(limit);
            first.ce_on_arrival.truncate(limit);
            first.outcome.truncate(limit);
            first.missed = (rows - limit) as u64;
            for threads in [1, 2, 3] {
                assert_eq!(log_of(&run_on_threads(&logged(limit as u64), threads, u64::MAX)), first, "{threads} threads, {limit} rows");
            }
        }
    }

    /// A row count that cuts a table ordered by time, then port, just after the first row of an
    /// instant whose next row is `distinct` from it (another port's), in the table's first
    /// eighth, so that each of 3 engines reaches it.
    fn cuts_inside_instants<T: PartialEq>(times: &[T], distinct: impl Fn(usize) -> bool) -> Vec<usize> {
        let rows = times.len();
        [rows / 8]
            .into_iter()
            .map(|from| {
                (from.max(1)..rows - 1)
                    .find(|&i| times[i - 1] != times[i] && times[i] == times[i + 1] && distinct(i))
                    .map(|i| i + 1)
                    .expect("an instant with offers at two ports")
            })
            .collect()
    }

    /// A pcap file's records (each with its 16-byte header), after the 24-byte file header.
    fn pcap_records(pcap: &[u8]) -> Vec<&[u8]> {
        let mut records = Vec::new();
        let mut at = 24;
        while at < pcap.len() {
            let captured = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().expect("4 bytes")) as usize;
            records.push(&pcap[at..at + 16 + captured]);
            at += 16 + captured;
        }
        records
    }

    #[test]
    fn captures_are_the_same_on_any_number_of_threads_and_cut_where_one_would() {
        // Each port's packets are captured in the part of its far end; the engines' records
        // joined and ordered by time, then port.
        let captured = |max: u64| parsed(&fat_tree_poisson_until("2ms", &format!("capture_ports = [\"*\"]\ncapture_max_packets = {max}\n")));
        let capture_of = |r: &RunResults| r.capture.clone().expect("a capture");
        let all = run_on_threads(&captured(10_000_000), 1, u64::MAX);
        let full = capture_of(&all);
        let records = pcap_records(&full.pcap);
        assert!(records.len() > 10_000 && records.len() as u64 == full.packets && full.missed == 0, "{} records", records.len());
        let time = |r: &[u8]| (u32::from_le_bytes(r[0..4].try_into().expect("4")), u32::from_le_bytes(r[4..8].try_into().expect("4")));
        assert!(records.windows(2).all(|w| time(w[0]) <= time(w[1])), "in time order");
        for threads in [2, 3] {
            let other = run_on_threads(&captured(10_000_000), threads, u64::MAX);
            assert_eq!(capture_of(&other), full, "{threads} threads");
            assert_eq!(other.flows, all.flows, "{threads} threads");
        }
        assert_eq!(capture_of(&run_dealt(&captured(10_000_000), 3, Some(dealt(20, 3, 5)), u64::MAX)), full, "dealt");
        // A limit inside a nanosecond's packets: the whole capture's first records.
        let times: Vec<_> = records.iter().map(|r| time(r)).collect();
        for limit in cuts_inside_instants(&times, |i| records[i] != records[i + 1]) {
            let mut first = full.pcap[..24].to_vec();
            for record in &records[..limit] {
                first.extend_from_slice(record);
            }
            let expected = crate::results::CaptureFile { pcap: first, packets: limit as u64, missed: (records.len() - limit) as u64 };
            for threads in [1, 2, 3] {
                assert_eq!(capture_of(&run_on_threads(&captured(limit as u64), threads, u64::MAX)), expected, "{threads} threads, {limit} packets");
            }
        }
    }

    /// The benchmarks that can be cut, each on 4 threads and dealt at random to 3: minutes in a
    /// release build, so left out of `cargo test`; run it with `cargo test --release -p
    /// incast-sim -- --ignored the_benchmarks_cut` after a change to the round loop.
    #[test]
    #[ignore]
    fn the_benchmarks_cut_into_parts_give_the_same_results_on_any_engines() {
        let names = ["leaf_spine_web_search_dctcp", "leaf_spine_web_search_pdq", "leaf_spine_web_search_pfabric",
            "leaf_spine_web_search_ndp", "fat_tree_k8_web_search_dctcp", "oldi_fan_in_40_d3"];
        for name in names {
            let path = format!("{}/../../benches/{name}.toml", env!("CARGO_MANIFEST_DIR"));
            let scenario = crate::scenario::load(std::path::Path::new(&path)).expect("a benchmark loads");
            let parts = Simulation::in_parts(&scenario).expect("can be cut").rounds.as_ref().map_or(1, |r| r.parts());
            assert!(parts > 3, "{name}");
            let reference = run_in_parts(&scenario, u64::MAX);
            for seed in [11, 12] {
                let other = run_dealt(&scenario, 3, Some(dealt(parts, 3, seed)), u64::MAX);
                assert_eq!(other.flows, reference.flows, "{name}, deal {seed}");
                assert_eq!(other.ports, reference.ports, "{name}, deal {seed}");
                assert_eq!(counts(&other), counts(&reference), "{name}, deal {seed}");
            }
            let threads = run_on_threads(&scenario, 4, u64::MAX);
            assert_eq!(threads.flows, reference.flows, "{name}, threads");
            assert_eq!(threads.ports, reference.ports, "{name}, threads");
            assert_eq!(counts(&threads), counts(&reference), "{name}, threads");
        }
    }
}
