//! NDP (Handley, Raiciu, Agache, Voinescu, Moore, Antichi, Wójcik, "Re-architecting datacenter
//! networks and stacks for low latency and high performance", SIGCOMM 2017): switches that trim
//! a data packet to its header rather than drop it, receivers that answer every arrival and pull
//! the rest of each flow at their own link's rate, and senders that start at line rate.
//!
//! ```text
//!  NdpSender ── first window at line rate, then one packet a PULL ──► switch ports (TrimmingQueue):
//!      ▲                                                      past a few full packets, a data
//!      │                                                      packet loses its payload; headers,
//!      │                                                      ACKs, NACKs and PULLs go first
//!      │                                                              │
//!  ACK, NACK ◄── receiver's NIC (HostQueue: fair priority classes ◄── NdpReceiver: an ACK for a
//!  PULL      ◄──  and the host's PullPacer, one PULL a packet time)     packet, a NACK for a header,
//!                                                                       and a PULL for either
//! ```
//!
//! - [`packet`]: what NDP packets carry ([`NdpHeader`]) and their sizes.
//! - [`sender`]: the sender ([`NdpSender`]): its first window, a packet per PULL, resending what
//!   was NACKed first or a switch returned (return-to-sender), and (incast's own) a timeout for
//!   what the network lost outright.
//! - [`receiver`]: the receiver ([`NdpReceiver`]): in-order bytes, and the answer to each arrival.
//! - [`switch`]: a switch port's queue ([`TrimmingQueue`], htsim's `CompositeQueue`), which
//!   returns to its sender a header it has no room for, with return-to-sender on.
//! - [`host`]: a host NIC's queue ([`HostQueue`], htsim's `FairPriorityQueue`) with the host's
//!   PULL pacer ([`PullPacer`], htsim's `NdpPullPacer`), shared by every flow the host receives.
//!
//! The rules follow the authors' simulator, htsim (Broadcom/csg-htsim at 841d9e7: `ndp.cpp`,
//! `ndppacket.h`, `compositequeue.cpp`, `queue.cpp`, `fairpullqueue.cpp`), whose lines each
//! rule cites; docs/ndp.md lists them with the paper's sections and incast's own choices.

pub mod host;
pub mod packet;
pub mod receiver;
pub mod sender;
pub mod switch;

#[cfg(test)]
mod harness;

pub use host::{FairQueue, HostClass, HostQueue, PullPacer};
pub use packet::{NdpHeader, NDP_HEADER_BYTES};
pub use receiver::{Answer, NdpReceiver};
pub use sender::{NdpConfig, NdpSegment, NdpSender, NdpStats};
pub use switch::{Offered, TrimmingQueue};
