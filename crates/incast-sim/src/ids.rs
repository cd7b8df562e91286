//! Newtype indices of the components a `Simulation` owns in its vectors.

/// A network node: a host or a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// An egress port: a node's transmitter and the link it drives to one neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortId(pub u32);

/// A flow, numbered in scenario order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// A packet slot in the packet arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketId(pub u32);

impl NodeId {
    pub(crate) fn idx(self) -> usize {
        self.0 as usize
    }
}
impl PortId {
    pub(crate) fn idx(self) -> usize {
        self.0 as usize
    }
}
impl FlowId {
    pub(crate) fn idx(self) -> usize {
        self.0 as usize
    }
}
