//! The flows a run holds: those started or about to, not every flow of the run. A flow keeps its
//! number (`FlowId`) for the whole run, and a number is never given to another flow; its state
//! lives in a slot that is reused once the flow has ended and nothing in the network refers to
//! it any more (issue 26: memory that follows the flows in flight, not all the flows of a run).
//!
//! A lookup is two loads: the number's slot, then the slot. The slots are dense (only live flows),
//! so on a large run they stay in cache better than a table of every flow did.

use std::ops::{Index, IndexMut};

use crate::error::{grow_to, reserve, ResourceError};
use incast_proto::time::Instant;

use crate::flow::Flow;
use crate::ids::FlowId;
use crate::transport::FlowFacts;

/// No slot: the flow has not been added yet, or has been released.
const NO_SLOT: u32 = u32::MAX;

/// Where a flow in the table is: valid until the flow is removed, whatever is added or removed
/// meanwhile. A caller that reads one flow several times in a row (`Simulation::pump`) looks its
/// slot up once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot(u32);

/// Flows by number, in reusable slots.
#[derive(Default)]
pub(crate) struct FlowTable {
    /// Each flow number's slot, `NO_SLOT` if it has none.
    slot_of: Vec<u32>,
    /// The flows, each beside its number.
    slots: Vec<(FlowId, Flow)>,
    /// Slots freed by released flows.
    free: Vec<u32>,
}

impl FlowTable {
    /// Adds flow `id`, which must not be in the table.
    pub(crate) fn insert(&mut self, id: FlowId, flow: Flow) -> Result<(), ResourceError> {
        grow_to(&mut self.slot_of, id.idx() + 1, NO_SLOT, "the flow table")?;
        debug_assert_eq!(self.slot_of[id.idx()], NO_SLOT, "flow {} added twice", id.0);
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = (id, flow);
                slot
            }
            None => {
                reserve(&mut self.slots, 1, "the flow table")?;
                self.slots.push((id, flow));
                (self.slots.len() - 1) as u32
            }
        };
        self.slot_of[id.idx()] = slot;
        Ok(())
    }

    /// The slot of flow `id`, which is in the table.
    #[inline]
    pub(crate) fn slot(&self, id: FlowId) -> Slot {
        Slot(self.slot_of[id.idx()])
    }

    /// Flow `id`, if it is in the table.
    #[inline]
    pub(crate) fn get(&self, id: FlowId) -> Option<&Flow> {
        let slot = *self.slot_of.get(id.idx())?;
        (slot != NO_SLOT).then(|| &self.slots[slot as usize].1)
    }

    /// Starts loading where flow `id`'s slot is written (a cache hint).
    #[inline]
    pub(crate) fn prefetch_slot_of(&self, id: FlowId) {
        if let Some(slot) = self.slot_of.get(id.idx()) {
            crate::prefetch::line(slot);
        }
    }

    /// Flow `id`, if it is in the table.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: FlowId) -> Option<&mut Flow> {
        let slot = *self.slot_of.get(id.idx())?;
        (slot != NO_SLOT).then(|| &mut self.slots[slot as usize].1)
    }

    /// Takes flow `id`, which has ended and retired (no transport, no timer), out of the table;
    /// its slot goes to the next flow added, and its number is never found again. The slot
    /// keeps the ended flow until then (nothing of it is left to free: `Flow::retire`).
    pub(crate) fn remove(&mut self, id: FlowId) {
        let slot = std::mem::replace(&mut self.slot_of[id.idx()], NO_SLOT);
        assert_ne!(slot, NO_SLOT, "flow {} is not in the table", id.0);
        debug_assert!(self.slots[slot as usize].1.ends_freed() && self.slots[slot as usize].1.sender_timer_at.is_none() && self.slots[slot as usize].1.receiver_timer_at.is_none());
        // A reserve failure here only costs the reuse of the slot.
        if self.free.try_reserve(1).is_ok() {
            self.free.push(slot);
        }
    }

    /// The flows in the table, with their numbers, in number order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (FlowId, &Flow)> + '_ {
        self.slot_of.iter().enumerate().filter(|(_, &s)| s != NO_SLOT).map(|(i, &s)| (FlowId(i as u32), &self.slots[s as usize].1))
    }

    /// Every slot's flow, in no particular order, with the ended flows left in freed slots
    /// (which have no transport and no timer): cheaper than [`iter`](Self::iter) for a question
    /// that they answer as any ended flow would.
    pub(crate) fn slots(&self) -> impl Iterator<Item = &Flow> + '_ {
        self.slots.iter().map(|(_, f)| f)
    }
}

/// What a port's processor may ask of a flow passing it.
impl FlowFacts for FlowTable {
    fn deadline(&self, flow: FlowId) -> Option<Instant> {
        self[flow].deadline_at
    }
}

impl Index<Slot> for FlowTable {
    type Output = Flow;

    #[inline]
    fn index(&self, slot: Slot) -> &Flow {
        &self.slots[slot.0 as usize].1
    }
}

impl IndexMut<Slot> for FlowTable {
    #[inline]
    fn index_mut(&mut self, slot: Slot) -> &mut Flow {
        &mut self.slots[slot.0 as usize].1
    }
}

impl Index<FlowId> for FlowTable {
    type Output = Flow;

    #[inline]
    fn index(&self, id: FlowId) -> &Flow {
        &self.slots[self.slot_of[id.idx()] as usize].1
    }
}

impl IndexMut<FlowId> for FlowTable {
    #[inline]
    fn index_mut(&mut self, id: FlowId) -> &mut Flow {
        &mut self.slots[self.slot_of[id.idx()] as usize].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(src: u32) -> Flow {
        let mut f = Flow::placeholder();
        f.plan.src = src;
        f.outcome = None;
        f
    }

    #[test]
    fn a_released_flow_is_never_found_again_and_its_slot_goes_to_the_next() {
        let mut t = FlowTable::default();
        for i in [4, 0, 9] {
            t.insert(FlowId(i), flow(i)).unwrap();
        }
        assert_eq!(t[FlowId(9)].plan.src, 9);
        t.remove(FlowId(0));
        assert!(t.get(FlowId(0)).is_none() && t.get_mut(FlowId(0)).is_none());
        assert!(t.get(FlowId(10)).is_none(), "never added");
        t.insert(FlowId(12), flow(12)).unwrap();
        assert_eq!(t.slots().count(), 3, "the new flow took the freed slot");
        let ids: Vec<u32> = t.iter().map(|(id, f)| {
            assert_eq!(f.plan.src, id.0);
            id.0
        }).collect();
        assert_eq!(ids, [4, 9, 12], "in number order");
    }
}
