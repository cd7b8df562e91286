//! Rounds of a run cut into parts (`crate::rounds`), on one thread or several (`[run] threads`,
//! issue 41).
//!
//! On several threads each thread has an engine of its own: a whole `Simulation`, with its own
//! copy of the network and of the flow table, that runs only its share of the parts (`assign`).
//! The first engine is the one the caller holds; the others are its `Crew`. Within a round the
//! engines share nothing but the `Post`: each engine runs its parts' events up to the round's
//! bound, from its one queue; an event for another part of its engine goes into that queue, one
//! for another engine's part (an arrival, with its packet) is a message, left at the post when the
//! round ends and queued by the receiving engine when the next begins (`Simulation::receive`:
//! the packet joins that engine's copy of its link). Each engine also queues the starts of the
//! flows of its hosts due in the round (`Simulation::queue_starts_before`). Between rounds one
//! thread holds every engine and
//!
//! - tells every engine of the flows started and ended in another (`begin_flow`,
//!   `count_ended`), so that the run's counters (flows running, completed, finite flows left)
//!   and the flows' start and end times, which every engine keeps whole, agree again;
//! - retires the flows whose sender was done (`gather_ends`: the receiver's end joins the
//!   sender's, the flow's outcome is taken from the two and given to every engine) and releases
//!   those with no packet left in any engine, in the order of their numbers;
//! - takes the event counts and the watchdog's evidence into the first engine, which decides
//!   the run's end, its stalls and the next round.
//!
//! Every event is ordered by (time, the part that scheduled it, that part's count), and every
//! choice between rounds is a function of the data (flow numbers, part numbers, times), never of
//! which engine holds what, so one thread and eight give the same results bit for bit; the one
//! engine on one thread is the same code with a crew of none.

use std::cmp::Reverse;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use incast_proto::time::{Duration, Instant};

use super::{Crew, Simulation};
use crate::event::Event;
use crate::ids::{FlowId, PortId};
use crate::packet::Packet;
use crate::rounds::{Message, Post, Rounds};
use crate::transport::Header;
use crate::watchdog::Stalled;

/// Starts and ends the rounds of the engines on other threads. Each waits for the next round to
/// open, spinning a while and then asleep (`Gate::wait_until`); the first engine's thread waits
/// the same way for all to be done.
#[derive(Default)]
struct Gate {
    /// Rounds opened so far.
    round: AtomicU64,
    /// The open round's bound, picoseconds.
    bound: AtomicU64,
    /// The open round's number.
    number: AtomicU64,
    /// Engines still running the open round.
    running: AtomicUsize,
    /// No more rounds: the threads end.
    closed: AtomicBool,
    /// An engine's thread panicked (a bug): the run stops with its panic.
    panicked: AtomicBool,
    /// Spins before yielding (`spins_for`).
    spins: u32,
    /// Threads asleep in `wait_until`, or about to be: a change wakes them only if there are any.
    sleepers: AtomicUsize,
    /// Held to go to sleep and to wake the sleepers, so that no wake-up falls between a sleeper's
    /// last test and its sleep.
    sleep: Mutex<()>,
    wake: Condvar,
}

impl Gate {
    /// Opens round `number` up to `bound` for `engines` engines.
    fn open(&self, number: u64, bound: Instant, engines: usize) {
        self.bound.store(bound.as_ps(), Ordering::Relaxed);
        self.number.store(number, Ordering::Relaxed);
        self.running.store(engines, Ordering::Relaxed);
        self.round.fetch_add(1, Ordering::Release);
        self.wake_sleepers();
    }

    /// Waits for a round after round `seen` (then seen): its number and bound, or `None` once
    /// closed.
    fn wait_open(&self, seen: &mut u64) -> Option<(u64, Instant)> {
        self.wait_until(|| self.closed.load(Ordering::Acquire) || self.round.load(Ordering::Acquire) != *seen);
        if self.closed.load(Ordering::Acquire) {
            return None;
        }
        *seen = self.round.load(Ordering::Acquire);
        Some((self.number.load(Ordering::Relaxed), Instant::from_ps(self.bound.load(Ordering::Relaxed))))
    }

    /// An engine is done with the open round.
    fn done(&self) {
        self.running.fetch_sub(1, Ordering::Release);
        self.wake_sleepers();
    }

    /// Waits for every engine to be done with the open round.
    fn wait_done(&self) {
        self.wait_until(|| self.running.load(Ordering::Acquire) == 0);
        if self.panicked.load(Ordering::Acquire) {
            panic!("an engine's thread panicked");
        }
    }
}

/// Closes the gate when dropped, so that the threads end even if the first engine's panics.
struct Closing<'a>(&'a Gate);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.0.closed.store(true, Ordering::Release);
        self.0.wake_sleepers();
    }
}

/// How many times a thread waiting at the gate spins before it yields and then sleeps, for a run
/// of `threads` threads on a machine of `cores`: a while (about 0.1-0.2 ms) when each thread can
/// have a core, since a round is often shorter than a sleeping thread's wake-up (spinning 10 us
/// instead made the k = 32 fat tree on 2 threads 15% slower); not at all when they cannot, since
/// a spinning thread then holds a core that a thread with work needs.
fn spins_for(threads: usize, cores: usize) -> u32 {
    if threads <= cores {
        1 << 12
    } else {
        0
    }
}

impl Gate {
    /// Waits for `ready`: spinning a while (a round is often shorter than a thread's wake-up),
    /// yielding the core a few times, then asleep until a change of the gate wakes it. Waiting
    /// only by yielding, as it first did, kept every waiting thread runnable: with more threads
    /// than free cores (8 threads on 2 cores, or two runs of 2 threads side by side) the waiting
    /// threads took the cores from the ones with work, and the bit-for-bit test on 8 threads ran
    /// for half a minute, a third of it in the kernel.
    fn wait_until(&self, ready: impl Fn() -> bool) {
        for spin in 0..self.spins + 64 {
            if ready() {
                return;
            }
            if spin < self.spins {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        loop {
            // Announced before the last test, and the wakers' changes made before they read
            // the count (both fenced): either this test sees the change, or its waker sees this
            // sleeper and wakes it, under the lock it holds from here to its sleep.
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            let asleep = self.sleep.lock().expect("the gate's lock");
            let woken = ready() || {
                drop(self.wake.wait(asleep).expect("the gate's lock"));
                ready()
            };
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            if woken {
                return;
            }
        }
    }

    /// Wakes the threads asleep in `wait_until`, if any, after a change of the gate.
    fn wake_sleepers(&self) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _held = self.sleep.lock().expect("the gate's lock");
            self.wake.notify_all();
        }
    }
}

/// An engine's thread: runs its parts in each round until the gate closes.
fn work(engine: &Mutex<Simulation>, post: &Post, gate: &Gate) {
    let mut seen = 0;
    while let Some((number, bound)) = gate.wait_open(&mut seen) {
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.lock().expect("an engine's lock").run_round(number, bound, post);
        }));
        if ran.is_err() {
            gate.panicked.store(true, Ordering::Release);
        }
        gate.done();
    }
}

/// Two distinct engines of `all`, mutably.
fn pair<'a>(all: &'a mut [&mut Simulation], a: usize, b: usize) -> (&'a mut Simulation, &'a mut Simulation) {
    debug_assert_ne!(a, b);
    if a < b {
        let (left, right) = all.split_at_mut(b);
        (&mut *left[a], &mut *right[0])
    } else {
        let (left, right) = all.split_at_mut(a);
        (&mut *right[0], &mut *left[b])
    }
}

impl Simulation {
    fn rounds_ref(&self) -> &Rounds {
        self.rounds.as_deref().expect("a run cut into parts")
    }

    fn rounds_mut(&mut self) -> &mut Rounds {
        self.rounds.as_deref_mut().expect("a run cut into parts")
    }

    /// Runs rounds (`crate::rounds`) until `budget` events have run, at a barrier, or the run is
    /// over at `stop` (its end or horizon), on as many threads as the run has engines.
    pub(super) fn run_rounds(&mut self, budget: u64, stop: Instant) {
        let mut crew = self.crew.take().expect("a run cut into parts has a crew");
        let Crew { engines, post, rounds, cores } = &mut *crew;
        if engines.is_empty() {
            self.rounds_loop(engines, post, rounds, None, budget, stop);
        } else {
            let gate = Gate { spins: spins_for(engines.len() + 1, *cores), ..Gate::default() };
            let (engines, post) = (&*engines, &*post);
            std::thread::scope(|scope| {
                let closing = Closing(&gate);
                for engine in engines {
                    let gate = &gate;
                    scope.spawn(move || work(engine, post, gate));
                }
                self.rounds_loop(engines, post, rounds, Some(&gate), budget, stop);
                drop(closing);
            });
        }
        self.crew = Some(crew);
    }

    /// The rounds of `run_rounds`, this engine's parts on this thread, `others`' on theirs;
    /// `rounds` counts them.
    fn rounds_loop(&mut self, others: &[Mutex<Simulation>], post: &Post, rounds: &mut u64, gate: Option<&Gate>, budget: u64, stop: Instant) {
        let start = self.event_count;
        loop {
            let bound = {
                let mut locked: Vec<_> = others.iter().map(|e| e.lock().expect("an engine's lock")).collect();
                let mut all: Vec<&mut Simulation> = std::iter::once(&mut *self).chain(locked.iter_mut().map(|e| &mut **e)).collect();
                match next_round(&mut all, start, budget, stop) {
                    Some(bound) => bound,
                    None => return,
                }
            };
            let number = *rounds;
            *rounds += 1;
            if let Some(gate) = gate {
                gate.open(number, bound, others.len());
            }
            self.run_round(number, bound, post);
            if let Some(gate) = gate {
                gate.wait_done();
            }
            let mut locked: Vec<_> = others.iter().map(|e| e.lock().expect("an engine's lock")).collect();
            let mut all: Vec<&mut Simulation> = std::iter::once(&mut *self).chain(locked.iter_mut().map(|e| &mut **e)).collect();
            end_round(&mut all);
        }
    }

    /// Round `number` of this engine, up to `bound`: the flows starting in it and the last
    /// round's messages for its parts queued, its parts run, its messages left at the post.
    fn run_round(&mut self, number: u64, bound: Instant, post: &Post) {
        // The flows starting in the round (every engine draws them all, in parallel), then
        // the last round's messages.
        self.queue_starts_before(bound);
        if number > 0 {
            self.take_post(number - 1, post);
        }
        self.rounds_mut().sent_min = Instant::NEVER;
        self.run_parts(bound);
        self.rounds_mut().leave_at(post, number);
    }

    /// Queues the messages of round `number` for this engine's parts.
    fn take_post(&mut self, number: u64, post: &Post) {
        let engine = self.rounds_ref().engine() as usize;
        post.take(number, engine, |message, packet, header| self.receive(message, packet, header));
    }

    /// Queues `message`, an arrival from another engine, in its part, its packet on this
    /// engine's copy of its link.
    fn receive(&mut self, message: &Message, packet: Packet, header: Option<Header>) {
        let &Message { time, seq, to, event, .. } = message;
        let Event::Arrive(port) = event else { unreachable!("{event:?} from another engine: only arrivals cross") };
        let id = self.packets.alloc(packet, header);
        self.net.ports[port.idx()].put_arrival(time, id);
        debug_assert_eq!(self.rounds_ref().engine_of(to), self.rounds_ref().engine(), "a message for this engine's part");
        self.events.push_numbered(time, seq, event);
    }

    /// Runs every event of this engine's parts due before `bound`, in its queue's order.
    fn run_parts(&mut self, bound: Instant) {
        self.run_events(u64::MAX, Instant::from_ps(bound.as_ps() - 1), Instant::NEVER);
        self.rounds_mut().current = crate::rounds::BARRIER;
    }

    /// Runs the coordinator's events due at or before `until`, between rounds.
    fn run_coordinator(&mut self, until: Instant) {
        let rounds = self.rounds.as_deref_mut().expect("a run cut into parts");
        std::mem::swap(&mut rounds.coordinator, &mut self.events);
        self.run_events(u64::MAX, until, Instant::NEVER);
        let rounds = self.rounds.as_deref_mut().expect("a run cut into parts");
        std::mem::swap(&mut rounds.coordinator, &mut self.events);
    }

    /// Flow `id`'s receiver got every byte at `at` in another engine: this one counts it ended.
    fn count_ended(&mut self, id: FlowId, at: Instant) {
        let now = std::mem::replace(&mut self.now, at);
        self.flows[id].finished_at = Some(at);
        self.on_flow_ended(id, true);
        self.now = now;
    }
}

/// Between rounds: what the last round left for the barrier (`barrier`), then the next round's
/// bound, after the coordinator's events due before it (samples) and the watchdog's
/// tests; `None` when the run is over or `budget` events have run since the count `start`.
fn next_round(all: &mut [&mut Simulation], start: u64, budget: u64, stop: Instant) -> Option<Instant> {
    loop {
        if all[0].done || all[0].event_count - start >= budget {
            return None;
        }
        barrier(all);
        if all[0].done {
            return None;
        }
        let coordinator = all[0].rounds_ref().coordinator.peek_time();
        // The parts' next events, those of the last round's messages and the next flow start
        // (every engine has the same) among them.
        let sent = all.iter().map(|e| e.rounds_ref().sent_min).min().filter(|&t| t != Instant::NEVER);
        let start = all[0].starts.peek().map(|&Reverse((t, ..))| t);
        let parts = all.iter().filter_map(|e| e.events.peek_time()).chain(sent).chain(start).min();
        let next = match (parts, coordinator) {
            (Some(p), Some(c)) => Some(p.min(c)),
            (p, c) => p.or(c),
        };
        let first = &mut *all[0];
        let watch_at = first.watchdog.check_at();
        if first.watchdog.timers_due(first.event_count) || next.is_some_and(|t| t > watch_at && watch_at < stop) {
            first.watch(next.is_some_and(|t| t > watch_at) && watch_at < stop, watch_at);
            if first.done {
                return None;
            }
        }
        let Some(next) = next.filter(|&t| t <= stop) else {
            let pending = sent.is_some() || all.iter().any(|e| !e.events.is_empty() || !e.rounds_ref().coordinator.is_empty());
            all[0].run_out_with(stop, pending);
            return None;
        };
        if coordinator == Some(next) {
            // The coordinator's events of this instant (samples), between rounds, before the
            // parts': the first engine runs them, the sampled ports of the others lent to it.
            let lent = lend_sampled_ports(all);
            let flows_lent = lend_flow_ends(all, next);
            all[0].run_coordinator(next);
            swap_ports(all, &lent); // back to their engines
            swap_flow_ends(all, &flows_lent);
            continue;
        }
        let after = |t: Instant| t + Duration::from_ps(1);
        let lookahead = all[0].rounds_ref().lookahead;
        let mut bound = (next + lookahead).min(after(stop)).min(after(watch_at.max(next)));
        if let Some(c) = coordinator {
            bound = bound.min(c);
        }
        return Some(bound);
    }
}

/// Lends the first engine the sampled ports (`Sampling::ports`) that other engines run, for a
/// sample between rounds: a port's state is that of the engine that runs its sending part.
/// Returns them, with their engines, for `swap_ports` to give them back.
fn lend_sampled_ports(all: &mut [&mut Simulation]) -> Vec<(PortId, usize)> {
    let Some(sampling) = all[0].obs.sampling.as_ref() else { return Vec::new() };
    let rounds = all[0].rounds_ref();
    let lent: Vec<(PortId, usize)> =
        sampling.ports().iter().map(|&p| (p, rounds.engine_of(rounds.sender_part(p)) as usize)).filter(|&(_, e)| e != 0).collect();
    swap_ports(all, &lent);
    lent
}

/// Lends the first engine the ends it does not hold of the flows the sample at `now` reads, if
/// it reads flows (their throughput: `Sampling::reads_flows_next`, `samples_throughput_of`);
/// returns those flows, for `swap_flow_ends` to give them back. Only those flows: the table
/// keeps every flow while throughput is sampled, and lending all of them at every sample made a
/// long run on 2 threads take twice as long as on one (a k = 4 fat tree, 970 flows, 3 s of
/// samples every 100 us: 1.1-1.6 s against 0.5-0.7; 0.6-0.9 s now).
fn lend_flow_ends(all: &mut [&mut Simulation], now: Instant) -> Vec<FlowId> {
    let reads = all.len() > 1 && all[0].obs.sampling.as_ref().is_some_and(crate::observe::Sampling::reads_flows_next);
    if !reads {
        return Vec::new();
    }
    let ids: Vec<FlowId> =
        all[0].flows.iter().filter(|(_, f)| crate::observe::samples_throughput_of(f, now)).map(|(id, _)| id).collect();
    swap_flow_ends(all, &ids);
    ids
}

/// Swaps the ends of flows `ids` between the first engine and the engines that hold them, for
/// the ends the first engine does not hold.
fn swap_flow_ends(all: &mut [&mut Simulation], ids: &[FlowId]) {
    for &id in ids {
        let plan = all[0].flows[id].plan;
        let rounds = all[0].rounds_ref();
        let (home, away) = rounds.engines_of_ends(plan.src, plan.dst);
        if home != 0 {
            let (first, other) = pair(all, 0, home);
            std::mem::swap(&mut first.flows[id].sender, &mut other.flows[id].sender);
        }
        if away != 0 {
            let (first, other) = pair(all, 0, away);
            std::mem::swap(&mut first.flows[id].receiver, &mut other.flows[id].receiver);
        }
    }
}

/// Swaps each port of `ports` between the first engine and the engine named beside it.
fn swap_ports(all: &mut [&mut Simulation], ports: &[(PortId, usize)]) {
    for &(port, engine) in ports {
        let (first, other) = pair(all, 0, engine);
        std::mem::swap(&mut first.net.ports[port.idx()], &mut other.net.ports[port.idx()]);
    }
}

/// After a round: every engine at the latest instant any part reached, whatever their order,
/// and a failure of any engine the run's.
fn end_round(all: &mut [&mut Simulation]) {
    let latest = all.iter().map(|e| e.now).max().expect("an engine");
    for engine in all.iter_mut() {
        engine.now = latest;
    }
    take_failures(all);
}

/// A failure of any engine (out of memory) stops the run, reported by the first.
fn take_failures(all: &mut [&mut Simulation]) {
    for i in 1..all.len() {
        if let Some(e) = all[i].failure.take() {
            all[0].failure.get_or_insert(e);
            all[0].done = true;
        }
    }
}

/// Between two rounds (`Rounds`): every engine counts the flows that ended in another; the
/// flows whose sender was done retire, those with nothing left in the network leave the table,
/// in the order of their numbers; then the run's end is tested (every finite flow done: the
/// run ends at the last one's end), stale timers are purged, and whether the run can still
/// move if a port's timer ran.
fn barrier(all: &mut [&mut Simulation]) {
    let mut retiring = Vec::new();
    let mut releases = Vec::new();
    let mut stall_check_due = false;
    let mut last_end = Instant::ZERO;
    for i in 0..all.len() {
        let rounds = all[i].rounds_mut();
        retiring.append(&mut rounds.retiring);
        releases.append(&mut rounds.releases);
        stall_check_due |= std::mem::take(&mut rounds.stall_check_due);
        last_end = last_end.max(rounds.last_end);
        let (started, ended) = (std::mem::take(&mut rounds.started), std::mem::take(&mut rounds.ended));
        for j in (0..all.len()).filter(|&j| j != i) {
            // Started first: a flow may start and end in one round, within one part.
            for &(id, at) in &started {
                all[j].begin_flow(id, at);
            }
            for &(id, at) in &ended {
                all[j].count_ended(id, at);
            }
        }
        if i > 0 {
            // The first engine counts the run's events and judges its progress.
            let (first, other) = pair(all, 0, i);
            first.event_count += std::mem::take(&mut other.event_count);
            first.watchdog.absorb(&mut other.watchdog);
        }
    }
    for engine in all.iter_mut() {
        engine.rounds_mut().last_end = last_end;
    }
    // The most flows running at once, as seen between rounds (whichever engine started them).
    let running = all[0].running;
    all[0].watchdog.flow_started(running);
    retiring.sort_unstable();
    let now = all[0].now;
    for (id, at) in retiring {
        if all.len() > 1 {
            gather_ends(all, id);
        }
        for engine in all.iter_mut() {
            engine.now = at;
            let flow = &mut engine.flows[id];
            flow.retire();
            if flow.finished_at.is_none() {
                // The host gave up on the flow (D3 quenching): it ends here, without completing.
                engine.on_flow_ended(id, false);
            }
        }
        release_if_done(all, id);
    }
    for engine in all.iter_mut() {
        engine.now = now;
        engine.draw_bursts();
    }
    releases.sort_unstable();
    releases.dedup();
    for id in releases {
        if all[0].flows.get(id).is_some() {
            release_if_done(all, id);
        }
    }
    let first = &*all[0];
    if first.finite_remaining == 0 && first.starts.is_empty() && (first.has_no_long_flows() || first.stop_after_finite_flows) {
        for engine in all.iter_mut() {
            engine.now = last_end;
        }
        all[0].done = true;
        return;
    }
    let pending: usize = all.iter().map(|e| e.events.timers_pending()).sum();
    if pending >= all[0].purge_timers_at {
        let left: usize = all.iter_mut().map(|e| e.drop_stale_timers()).sum();
        all[0].purge_timers_at = (2 * left).max(all[0].purge_floor);
    }
    if stall_check_due {
        let first = &*all[0];
        if first.end.is_none() && first.starts.is_empty() && all.iter().all(|e| e.quiet()) {
            // Unfinished flows are left (else the run would have ended), and none can act again.
            let flows = all[0].running;
            all[0].stalled(Stalled::Deadlock { flows });
        }
    }
}

/// Flow `id`, whose sender is done, retires: its receiver's end joins its sender's in the
/// sender's engine, and every engine gets the outcome of the two and the receiver's record of
/// its waits, as the one engine of a run on one thread has them.
fn gather_ends(all: &mut [&mut Simulation], id: FlowId) {
    let plan = all[0].flows[id].plan;
    let rounds = all[0].rounds_ref();
    let (home, away) = rounds.engines_of_ends(plan.src, plan.dst);
    if home != away {
        let (sender, receiver) = pair(all, home, away);
        let (at_home, away) = (&mut sender.flows[id], &mut receiver.flows[id]);
        at_home.receiver = away.receiver.take();
        at_home.receiver_timer_at = away.receiver_timer_at.take();
        at_home.stalls = away.stalls;
    }
    let flow = &all[home].flows[id];
    let (outcome, stalls) = (flow.outcome(), flow.stalls);
    for engine in all.iter_mut() {
        let flow = &mut engine.flows[id];
        flow.outcome = Some(outcome);
        flow.stalls = stalls;
    }
}

/// Takes flow `id` out of every engine's table if it is over for good: ended in every engine,
/// no packet of it left in any (`Simulation::releasable`). The first engine keeps its row.
fn release_if_done(all: &mut [&mut Simulation], id: FlowId) {
    let in_flight = all.iter().fold(0u32, |sum, e| sum.wrapping_add(e.flows[id].in_flight));
    let ended = all.iter().all(|e| e.flows[id].ends_freed());
    if ended && all[0].releasable(id, in_flight) {
        for (i, engine) in all.iter_mut().enumerate() {
            engine.release(id, i == 0);
        }
    }
}

impl Simulation {
    /// Ends a run on several threads: the other engines' ports (each port's from the engine
    /// that ran its sending part), flows' ends, counters, trace rows, offer log rows, captured
    /// packets and packets join this one's, which then holds the results. Returns the packets
    /// the others held; fails if their trace rows together pass `run.max_samples`, or if memory
    /// runs out.
    pub(super) fn gather_crew(&mut self) -> Result<u64, crate::error::ResourceError> {
        let Some(crew) = self.crew.take() else { return Ok(0) };
        let Crew { engines, post, rounds: run, .. } = *crew;
        let mut others: Vec<Simulation> = engines.into_iter().map(|e| e.into_inner().expect("an engine's lock")).collect();
        if run > 0 {
            // The last round's messages: their packets are in the network.
            self.take_post(run - 1, &post);
            for other in &mut others {
                other.take_post(run - 1, &post);
            }
        }
        let mut packets = 0;
        for other in &mut others {
            self.event_count += std::mem::take(&mut other.event_count);
            self.obs.counters.absorb(&other.obs.counters);
            if let (Some(traces), Some(theirs)) = (self.obs.traces.as_mut(), other.obs.traces.take()) {
                traces.absorb(theirs)?;
            }
            if let (Some(log), Some(theirs)) = (self.obs.offer_log.as_mut(), other.obs.offer_log.take()) {
                log.absorb(theirs)?;
            }
            if let (Some(capture), Some(theirs)) = (self.obs.capture.as_mut(), other.obs.capture.take()) {
                capture.absorb(theirs)?;
            }
            packets += other.packets.live();
        }
        let rounds = self.rounds.as_deref().expect("a run cut into parts");
        for (p, port) in self.net.ports.iter_mut().enumerate() {
            let engine = rounds.engine_of(rounds.sender_part(PortId(p as u32))) as usize;
            if engine != 0 {
                std::mem::swap(port, &mut others[engine - 1].net.ports[p]);
            }
        }
        let live: Vec<FlowId> = self.flows.iter().map(|(id, _)| id).collect();
        for id in live {
            let plan = self.flows[id].plan;
            let (home, away) = rounds.engines_of_ends(plan.src, plan.dst);
            if home != 0 {
                let there = &mut others[home - 1].flows[id];
                let (sender, timer) = (there.sender.take(), there.sender_timer_at.take());
                let here = &mut self.flows[id];
                (here.sender, here.sender_timer_at) = (sender, timer);
            }
            if away != 0 {
                let there = &mut others[away - 1].flows[id];
                let (receiver, timer, stalls) = (there.receiver.take(), there.receiver_timer_at.take(), there.stalls);
                let here = &mut self.flows[id];
                (here.receiver, here.receiver_timer_at, here.stalls) = (receiver, timer, stalls);
            }
        }
        Ok(packets)
    }

    /// Threads the run uses (`[run] threads`, at most one per part), or `None` when it runs as
    /// one event loop over the whole network (no `[run] threads`, or a network of one part).
    pub fn threads(&self) -> Option<usize> {
        self.crew.as_deref().map(Crew::threads)
    }
}
