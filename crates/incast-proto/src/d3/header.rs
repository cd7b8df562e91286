//! The D3 congestion header in memory (D3, SIGCOMM 2011, Section 5, "Packet header" and
//! Figure 6): the rate request a sender puts on one packet per RTT, the vector of allocations the
//! routers write into it on the way, and the feedback the receiver carries back on the ACK.
//!
//! Rates here are [`Rate`]s as the header carries them: hosts and routers pass every rate they
//! write through the same [`RateField`](super::RateField) (exact, or the paper's 8-bit fields),
//! and an allocation of [`BASE_GRANT`](super::BASE_GRANT) (0) is the base-rate grant. The
//! byte-level codec is `incast_wire::d3`; [`CongestionHeader::to_wire`] and
//! [`Feedback::to_wire`] are the one conversion into it, so that nothing else turns the rates in
//! memory into the header's bytes.

use incast_wire::d3::{encode_grant, encode_request, Repr, VECTOR_LEN};

use crate::rate::Rate;

/// Length of the allocation vectors: at most this many routers on a path (Section 5: "The
/// allocation vectors are 6 bytes long, allowing for a maximum network diameter of 6 routers").
pub const MAX_HOPS: usize = 6;

/// Bytes the congestion header adds to every packet that carries a rate request (Section 5: "our
/// current implementation imposes an overhead of 22 bytes for every packet carrying rate
/// requests").
pub const D3_HEADER_BYTES: u32 = 22;

/// A rate request as it travels from sender to receiver.
///
/// The sender fills `syn`, `fin`, `desired`, `prev_desired` and `prev_alloc` and leaves `index`
/// at 0 and `alloc` empty; each router on the path reads its slot of `prev_alloc` (at `index`),
/// writes its new allocation into `alloc[index]` and advances `index` (see
/// [`record_alloc`](Self::record_alloc)). Carrying r(t) and [a(t)] is what lets routers keep
/// aggregate counters only (Section 4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CongestionHeader {
    /// The flow starts: routers count it (N += 1). Set on the SYN (Figure 7, step 1).
    pub syn: bool,
    /// The flow ends: routers take back `prev_desired` and `prev_alloc` and allocate nothing
    /// (Figure 7, step 5: the FIN "returns its existing allocation").
    pub fin: bool,
    /// r(t+1), the rate the flow asks for its next RTT; 0 for a flow without a deadline.
    pub desired: Rate,
    /// r(t), what the flow asked for in its previous request (0 on the SYN).
    pub prev_desired: Rate,
    /// [a(t)], one per router on the path, as the sender last learned them (ignored on the
    /// SYN, where the flow holds nothing yet).
    pub prev_alloc: [Rate; MAX_HOPS],
    /// The next router slot to fill in `alloc`; also the number of routers passed so far.
    pub index: u8,
    /// [a(t+1)], written by the routers on the way ([`BASE_GRANT`](super::BASE_GRANT) for the
    /// base rate).
    pub alloc: [Rate; MAX_HOPS],
}

impl CongestionHeader {
    /// Writes one router's allocation into the next slot and advances `index`. Returns `false`,
    /// and changes nothing, when all [`MAX_HOPS`] slots are taken (a path longer than the
    /// header can describe).
    pub fn record_alloc(&mut self, alloc: Rate) -> bool {
        let i = usize::from(self.index);
        if i >= MAX_HOPS {
            return false;
        }
        self.alloc[i] = alloc;
        self.index += 1;
        true
    }

    /// The header in its wire form (D3 Figure 6) with rates at `scale`: desired rates rounded up
    /// and allocations truncated to the 8-bit fields, as [`RateField`](super::RateField) rounds
    /// them (so a header whose rates came through `RateField::Quantized { scale }` converts
    /// exactly). The `feedback` vector is left empty: a request carries none.
    pub fn to_wire(&self, scale: u8) -> Repr {
        Repr {
            desired_rate: encode_request(self.desired, scale),
            index: self.index,
            alloc: grants(&self.alloc, scale),
            prev_desired_rate: encode_request(self.prev_desired, scale),
            prev_alloc: grants(&self.prev_alloc, scale),
            feedback: [0; VECTOR_LEN],
            scale,
        }
    }

    /// The previous allocation of the router at the current `index`, a(t) for that router.
    pub fn prev_alloc_here(&self) -> Rate {
        self.prev_alloc
            .get(usize::from(self.index))
            .copied()
            .unwrap_or(0)
    }
}

/// The rates the routers allocated, carried back to the sender on the ACK of a rate request
/// (Figure 7, step 2: "The congestion header of the response includes the allocated rate vector
/// for the sender").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Feedback {
    /// How many routers filled a slot (the request's final `index`).
    pub hops: u8,
    /// [a(t+1)]; slots from `hops` on are unused.
    pub alloc: [Rate; MAX_HOPS],
}

impl Feedback {
    /// The feedback for a request that has crossed the network.
    pub fn from_request(header: &CongestionHeader) -> Self {
        Feedback {
            hops: header.index,
            alloc: header.alloc,
        }
    }

    /// The feedback in the wire form of the header (D3 Figure 6) on the ACK that carries it,
    /// rates at `scale`: the allocations in `alloc` and the routers that filled them in `index`,
    /// as the request left the last router, with no request of its own.
    pub fn to_wire(&self, scale: u8) -> Repr {
        Repr {
            desired_rate: 0,
            index: self.hops,
            alloc: grants(&self.alloc, scale),
            prev_desired_rate: 0,
            prev_alloc: [0; VECTOR_LEN],
            feedback: [0; VECTOR_LEN],
            scale,
        }
    }

    /// The sending rate this feedback grants: the smallest allocation on the path (Section 4.1:
    /// "The sending rate is the minimum of the allocated rates"), [`BASE_GRANT`](super::BASE_GRANT)
    /// as soon as one router gave the base rate, or `None` if no router took part.
    pub fn min_alloc(&self) -> Option<Rate> {
        let hops = usize::from(self.hops).min(MAX_HOPS);
        self.alloc[..hops].iter().copied().min()
    }
}

/// A vector of allocations as the wire's grant bytes at `scale`.
fn grants(rates: &[Rate; MAX_HOPS], scale: u8) -> [u8; VECTOR_LEN] {
    rates.map(|r| encode_grant(r, scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3::rate::HEADER_ONLY_PACKET_BYTES;
    use crate::tcp::HEADER_BYTES;

    #[test]
    fn header_bytes_header_only_packet_is_tcp_plus_d3_header() {
        assert_eq!(
            u64::from(HEADER_BYTES + D3_HEADER_BYTES),
            HEADER_ONLY_PACKET_BYTES
        );
    }

    #[test]
    fn record_alloc_fills_slots_in_order_until_full() {
        let mut h = CongestionHeader {
            prev_alloc: [10, 20, 30, 40, 50, 60],
            ..CongestionHeader::default()
        };
        assert_eq!(h.prev_alloc_here(), 10);
        assert!(h.record_alloc(7));
        assert_eq!(h.prev_alloc_here(), 20);
        assert!(h.record_alloc(5));
        assert_eq!((h.index, &h.alloc[..2]), (2, &[7, 5][..]));
        for _ in 2..MAX_HOPS {
            assert!(h.record_alloc(1));
        }
        assert_eq!(h.prev_alloc_here(), 0);
        assert!(!h.record_alloc(9));
        assert_eq!(h.index as usize, MAX_HOPS);
    }

    #[test]
    fn to_wire_rounds_requests_up_and_grants_down_at_the_scale() {
        const UNIT: Rate = 1_000_000;
        let h = CongestionHeader {
            syn: true,
            desired: 2 * UNIT + 1,
            prev_desired: 3 * UNIT,
            prev_alloc: [4 * UNIT + 999_999, 0, 0, 0, 0, 0],
            index: 2,
            alloc: [5 * UNIT, 1, 0, 0, 0, 0],
            ..CongestionHeader::default()
        };
        let repr = h.to_wire(1);
        assert_eq!((repr.desired_rate, repr.prev_desired_rate, repr.index, repr.scale), (3, 3, 2, 1));
        assert_eq!((repr.alloc, repr.prev_alloc, repr.feedback), ([5, 0, 0, 0, 0, 0], [4, 0, 0, 0, 0, 0], [0; 6]));
        // At scale 2 a unit is 2 MB/s.
        assert_eq!(h.to_wire(2).alloc[0], 2);
        let f = Feedback { hops: 2, alloc: [7 * UNIT, 6 * UNIT, 0, 0, 0, 0] };
        let repr = f.to_wire(1);
        assert_eq!((repr.index, repr.alloc, repr.desired_rate, repr.prev_alloc), (2, [7, 6, 0, 0, 0, 0], 0, [0; 6]));
    }

    #[test]
    fn feedback_min_alloc_over_filled_hops_only() {
        let mut h = CongestionHeader::default();
        h.record_alloc(300);
        h.record_alloc(100);
        h.record_alloc(200);
        let f = Feedback::from_request(&h);
        assert_eq!((f.hops, f.min_alloc()), (3, Some(100)));
        // Unused slots (0) do not count.
        assert_eq!(Feedback::default().min_alloc(), None);
    }
}
