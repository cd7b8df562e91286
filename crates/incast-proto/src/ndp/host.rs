//! An NDP host's NIC queue (htsim's `FairPriorityQueue`, `queue.cpp` lines 381-552, the host
//! queue `main_ndp.cpp` gives every host, line 107) and the host's PULL pacer (htsim's
//! `NdpPullPacer`, `ndp.cpp` lines 1814-2070), which every flow the host
//! receives shares.
//!
//! - **Classes.** Headers, ACKs and PULLs go first; data packets and NACKs wait at low priority
//!   (each packet's `priority()`, `ndppacket.h` lines 98-103, 161, 218, 274). Within a class the
//!   flows take turns ([`FairQueue`]). The queue has no limit (htsim's only prints past it,
//!   line 477): the sender's window and the PULLs bound it.
//! - **Pacing.** The pacer lets one PULL go per `drain` (a full packet's time at the pull rate:
//!   `(data_packet_size + ACKSIZE) x 8 / linkspeed / 0.99`, line 1817 and `main_ndp.cpp`
//!   line 553), taking turns among flows (htsim's pull queue, see [`PullPacer`]); a PULL that
//!   finds the pacer idle for a `drain` or more goes at once (line 1901). A PULL the pacer
//!   lets go joins the NIC's first class.
//!
//! The pacer runs on the NIC's clock lazily: every call brings it up to `now` first, releasing
//! the PULLs whose turn came in between at the times htsim's pacer events would have.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::packet::NdpHeader;
use crate::time::{Duration, Instant};

/// Round robin over flows, each with its own FIFO (htsim's `FairPullQueue`,
/// `fairpullqueue.cpp` lines 77-109): the next packet comes from the first flow, at or after the
/// cursor in flow number order and then from the start, that has one; the cursor then points at
/// the flow after it. htsim's pull queue with every receiver at one priority
/// (`PrioPullQueue`, `priopullqueue.cpp`) takes the same turns.
#[derive(Clone, Debug)]
pub struct FairQueue<T> {
    /// Per flow, its packets oldest first; a flow keeps its FIFO, empty, once it has had one.
    flows: BTreeMap<u32, VecDeque<T>>,
    /// The flows whose FIFO holds a packet: a turn looks for its flow here, so that it costs
    /// the logarithm of the flows, not a walk past every empty FIFO (a host that has received
    /// thousands of flows keeps thousands; the turns are the same).
    ready: BTreeSet<u32>,
    /// The flow the next turn starts at (htsim's `_current_queue`); `None` for the first.
    cursor: Option<u32>,
    len: usize,
}

impl<T> Default for FairQueue<T> {
    fn default() -> FairQueue<T> {
        FairQueue { flows: BTreeMap::new(), ready: BTreeSet::new(), cursor: None, len: 0 }
    }
}

impl<T> FairQueue<T> {
    /// Appends `item` to flow `flow`'s FIFO.
    pub fn push(&mut self, flow: u32, item: T) {
        self.flows.entry(flow).or_default().push_back(item);
        self.ready.insert(flow);
        self.len += 1;
    }

    /// The next item by round robin over flows.
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let flow = self.cursor_flow().expect("a queue that is not empty has a flow with an item");
        let fifo = self.flows.get_mut(&flow).expect("a ready flow has a FIFO");
        let item = fifo.pop_front().expect("a ready flow's FIFO holds an item");
        if fifo.is_empty() {
            self.ready.remove(&flow);
        }
        self.len -= 1;
        self.cursor = self.flows.range(flow.saturating_add(1)..).next().map(|(&f, _)| f).filter(|&f| f > flow);
        Some(item)
    }

    /// Removes flow `flow`'s items, oldest first.
    pub fn take_flow(&mut self, flow: u32) -> VecDeque<T> {
        let taken = self.flows.get_mut(&flow).map(std::mem::take).unwrap_or_default();
        self.ready.remove(&flow);
        self.len -= taken.len();
        taken
    }

    /// Items waiting.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A host's PULL pacer: the PULLs of every flow the host receives, let go one per `drain`.
#[derive(Clone, Debug)]
pub struct PullPacer<T> {
    waiting: FairQueue<T>,
    drain: Duration,
    /// When the pacer last let a PULL go (htsim's `_last_pull`, 0 at the start).
    last: Instant,
    /// When it lets the next one go, while PULLs wait.
    next_at: Option<Instant>,
}

impl<T> PullPacer<T> {
    /// A pacer that lets a PULL go every `drain`.
    pub fn new(drain: Duration) -> PullPacer<T> {
        PullPacer { waiting: FairQueue::default(), drain, last: Instant::ZERO, next_at: None }
    }

    /// Flow `flow`'s PULL `id` at `now`: it goes at once (returned) if no PULL waits and the last
    /// went a `drain` ago or more, else it waits its turn.
    pub fn offer(&mut self, now: Instant, flow: u32, id: T, released: &mut impl FnMut(u32, T)) -> Option<T> {
        self.advance(now, released);
        if self.waiting.is_empty() && now.saturating_since(self.last) >= self.drain {
            self.last = now;
            return Some(id);
        }
        if self.waiting.is_empty() {
            self.next_at = Some(self.last + self.drain);
        }
        self.waiting.push(flow, id);
        None
    }

    /// Lets go, through `released`, every PULL whose turn came by `now`, at the times it came.
    pub fn advance(&mut self, now: Instant, released: &mut impl FnMut(u32, T)) {
        while let Some(at) = self.next_at.filter(|&at| at <= now) {
            let flow = self.waiting.cursor_flow();
            match self.waiting.pop() {
                Some(id) => {
                    released(flow.expect("an item has a flow"), id);
                    self.last = at;
                    self.next_at = (!self.waiting.is_empty()).then_some(at + self.drain);
                }
                None => self.next_at = None,
            }
        }
    }

    /// When the next waiting PULL goes, if one waits.
    pub fn next_at(&self) -> Option<Instant> {
        self.next_at
    }

    /// Takes flow `flow`'s waiting PULLs out of turn, oldest first.
    pub fn take_flow(&mut self, flow: u32) -> VecDeque<T> {
        let taken = self.waiting.take_flow(flow);
        if self.waiting.is_empty() {
            self.next_at = None;
        }
        taken
    }

    /// PULLs waiting.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether no PULL waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

impl<T> FairQueue<T> {
    /// The flow whose item `pop` returns next: the first with an item at or after the cursor,
    /// then from the start.
    fn cursor_flow(&self) -> Option<u32> {
        let start = self.cursor.unwrap_or(0);
        self.ready.range(start..).next().or_else(|| self.ready.range(..start).next()).copied()
    }
}

/// Which class of a host NIC a packet joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostClass {
    /// Headers and ACKs: first.
    High,
    /// Data and NACKs: after.
    Low,
    /// A PULL: through the pacer, then first.
    Pull,
}

impl HostClass {
    /// The class of a packet with `header`, `whole` if it carries its payload: data packets and
    /// NACKs low (htsim's `PRIO_LO`, `ndppacket.h` lines 102 and 218), PULLs through the pacer,
    /// ACKs and trimmed packets high (lines 100, 161, 274).
    pub fn of(header: &NdpHeader, whole: bool) -> HostClass {
        match header {
            NdpHeader::Pull { .. } => HostClass::Pull,
            NdpHeader::Nack { .. } => HostClass::Low,
            NdpHeader::Data { .. } if whole => HostClass::Low,
            NdpHeader::Data { .. } | NdpHeader::Ack { .. } => HostClass::High,
        }
    }
}

/// An NDP host's NIC queue with the host's PULL pacer.
#[derive(Clone, Debug)]
pub struct HostQueue<T> {
    high: FairQueue<T>,
    low: FairQueue<T>,
    pacer: PullPacer<T>,
}

impl<T> HostQueue<T> {
    /// A NIC whose pacer lets a PULL go every `drain`.
    pub fn new(drain: Duration) -> HostQueue<T> {
        HostQueue { high: FairQueue::default(), low: FairQueue::default(), pacer: PullPacer::new(drain) }
    }

    /// Flow `flow`'s packet `id` of `class` arrives at `now`.
    pub fn offer(&mut self, now: Instant, flow: u32, id: T, class: HostClass) {
        self.pacer.advance(now, &mut |f, pull| self.high.push(f, pull));
        match class {
            HostClass::High => self.high.push(flow, id),
            HostClass::Low => self.low.push(flow, id),
            HostClass::Pull => {
                if let Some(pull) = self.pacer.offer(now, flow, id, &mut |f, pull| self.high.push(f, pull)) {
                    self.high.push(flow, pull);
                }
            }
        }
    }

    /// Flow `flow` is whole at its receiver: its waiting PULLs go at once, unpaced, as they pull
    /// nothing (htsim frees them, `release_pulls`, `ndp.cpp` line 1983; here they still cross the
    /// wire, so that the NIC drops nothing it took).
    pub fn release_flow(&mut self, now: Instant, flow: u32) {
        self.pacer.advance(now, &mut |f, pull| self.high.push(f, pull));
        for pull in self.pacer.take_flow(flow) {
            self.high.push(flow, pull);
        }
    }

    /// The next packet to send at `now`.
    pub fn next(&mut self, now: Instant) -> Option<T> {
        self.pacer.advance(now, &mut |f, pull| self.high.push(f, pull));
        self.high.pop().or_else(|| self.low.pop())
    }

    /// When a PULL the pacer holds goes, if nothing else waits.
    pub fn held_until(&self) -> Option<Instant> {
        self.pacer.next_at()
    }

    /// Packets waiting, PULLs in the pacer included.
    pub fn len(&self) -> usize {
        self.high.len() + self.low.len() + self.pacer.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Instant {
        Instant::ZERO + Duration::from_us(n)
    }

    #[test]
    fn fair_queue_takes_turns_among_flows_in_number_order() {
        let mut q = FairQueue::default();
        for (flow, id) in [(5, 'a'), (5, 'b'), (2, 'c'), (9, 'd'), (2, 'e')] {
            q.push(flow, id);
        }
        let order: String = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, "cadeb");
    }

    #[test]
    fn fair_queue_cursor_skips_a_flow_that_joins_behind_it_until_the_turn_wraps() {
        let mut q = FairQueue::default();
        q.push(1, 'a');
        q.push(3, 'b');
        q.push(3, 'c');
        assert_eq!(q.pop(), Some('a'));
        // The cursor is at flow 3; flow 2 joins between 1 and 3, htsim's iterator has passed it.
        q.push(2, 'x');
        assert_eq!(q.pop(), Some('b'));
        assert_eq!(q.pop(), Some('x'));
        assert_eq!(q.pop(), Some('c'));
    }

    /// The turns as htsim takes them, by a walk over every flow's FIFO, empty ones included:
    /// what `FairQueue` must give with its set of flows that hold an item.
    #[derive(Default)]
    struct Walk {
        flows: BTreeMap<u32, VecDeque<u32>>,
        cursor: Option<u32>,
    }

    impl Walk {
        fn pop(&mut self) -> Option<u32> {
            let start = self.cursor.unwrap_or(0);
            let flow = self.flows.range(start..).chain(self.flows.range(..start)).find(|(_, q)| !q.is_empty())?.0;
            let flow = *flow;
            let item = self.flows.get_mut(&flow)?.pop_front();
            self.cursor = self.flows.range(flow.saturating_add(1)..).next().map(|(&f, _)| f).filter(|&f| f > flow);
            item
        }
    }

    proptest::proptest! {
        #[test]
        fn fair_queue_takes_the_turns_of_a_walk_over_every_fifo(
            ops in proptest::collection::vec((0u8..4, 0u32..12), 1..400)
        ) {
            let (mut q, mut walk) = (FairQueue::default(), Walk::default());
            for (i, (op, flow)) in ops.into_iter().enumerate() {
                let item = u32::try_from(i).unwrap();
                match op {
                    0 | 1 => {
                        q.push(flow, item);
                        walk.flows.entry(flow).or_default().push_back(item);
                    }
                    2 => proptest::prop_assert_eq!(q.pop(), walk.pop()),
                    _ => {
                        let taken: Vec<u32> = q.take_flow(flow).into_iter().collect();
                        let walked: Vec<u32> =
                            walk.flows.get_mut(&flow).map(std::mem::take).unwrap_or_default().into_iter().collect();
                        proptest::prop_assert_eq!(taken, walked);
                    }
                }
                proptest::prop_assert_eq!(q.len(), walk.flows.values().map(VecDeque::len).sum::<usize>());
            }
        }
    }

    #[test]
    fn pacer_lets_a_pull_go_at_once_when_idle_and_spaces_the_rest_by_the_drain_time() {
        let mut p = PullPacer::new(Duration::from_us(7));
        let mut out = Vec::new();
        assert_eq!(p.offer(us(100), 1, 'a', &mut |_, x| out.push(x)), Some('a'));
        assert_eq!(p.offer(us(101), 2, 'b', &mut |_, x| out.push(x)), None);
        assert_eq!(p.offer(us(102), 1, 'c', &mut |_, x| out.push(x)), None);
        assert_eq!(p.next_at(), Some(us(107)));
        p.advance(us(120), &mut |_, x| out.push(x));
        // At 107 and 114, 7 us after the last, not after they were asked for; by turns in flow
        // order, so flow 1's 'c' first.
        assert_eq!(out, ['c', 'b']);
        assert_eq!(p.next_at(), None);
        // The last went at 114: one at 118 waits until 121.
        assert_eq!(p.offer(us(118), 3, 'd', &mut |_, x| out.push(x)), None);
        assert_eq!(p.next_at(), Some(us(121)));
    }

    #[test]
    fn pacer_takes_turns_among_flows() {
        let mut p = PullPacer::new(Duration::from_us(1));
        let mut out = Vec::new();
        p.offer(us(10), 1, 'x', &mut |_, x| out.push(x));
        for (flow, id) in [(1, 'a'), (1, 'b'), (2, 'c'), (2, 'd')] {
            p.offer(us(10), flow, id, &mut |_, x| out.push(x));
        }
        p.advance(us(20), &mut |_, x| out.push(x));
        assert_eq!(out, ['a', 'c', 'b', 'd']);
    }

    #[test]
    fn host_queue_sends_acks_and_pulls_before_data_and_nacks() {
        let mut q = HostQueue::new(Duration::from_us(7));
        q.offer(us(100), 1, "data", HostClass::Low);
        q.offer(us(100), 1, "nack", HostClass::Low);
        q.offer(us(100), 2, "ack", HostClass::High);
        q.offer(us(100), 2, "pull", HostClass::Pull);
        q.offer(us(100), 3, "pull2", HostClass::Pull);
        let order: Vec<&str> = std::iter::from_fn(|| q.next(us(100))).collect();
        assert_eq!(order, ["ack", "pull", "data", "nack"]);
        assert_eq!(q.held_until(), Some(us(107)), "the second PULL waits for its turn");
        assert_eq!(q.next(us(107)), Some("pull2"));
    }

    #[test]
    fn host_queue_releases_a_whole_flows_pulls_at_once() {
        let mut q = HostQueue::new(Duration::from_us(7));
        q.offer(us(100), 1, "p1", HostClass::Pull);
        q.offer(us(100), 2, "p2", HostClass::Pull);
        q.offer(us(100), 1, "p3", HostClass::Pull);
        assert_eq!(q.next(us(100)), Some("p1"));
        q.release_flow(us(101), 1);
        assert_eq!(q.next(us(101)), Some("p3"));
        assert_eq!(q.next(us(101)), None);
        assert_eq!(q.next(us(107)), Some("p2"));
    }
}
