//! The rate fields of the congestion header (D3, SIGCOMM 2011, Section 5: "All rates are in
//! Bytes/µs and hence, can be encoded in one byte"): the one conversion between the rates hosts
//! and routers compute and the rates the header carries, and the base-rate grant.
//!
//! Hosts and routers compute exact [`Rate`]s; whatever they put into a header goes through a
//! [`RateField`] first, so every rate a header carries is one the wire can carry:
//!
//! ```text
//!  host:   needed rate ─ request() ─► r(t+1)  (rounded up: a need is never understated)
//!  router: Snippet 1's a(t+1) ─ grant() ─► [a(t+1)]  (truncated; at or below the base rate:
//!                                                      BASE_GRANT, a header-only RTT)
//! ```
//!
//! [`BASE_GRANT`] (0) is the base rate of Section 4.2, the allocation "that allows them to send a
//! header-only packet per RTT and hence, request rates in the future". It has no value of its own
//! in the 8-bit field (a 62-byte request per 300 µs is 0.2 B/µs, a fifth of the smallest unit),
//! so the header says "base rate" and routers count the base rate it stands for exactly
//! ([`RateField::held`]). A host's pause test reads that grant, not its own request.

use crate::rate::Rate;

/// The allocation that grants the base rate: in its next RTT the flow sends only its rate
/// request (with the D2TCP paper's base rate, one segment; see `BaseGrant`). The smallest value a
/// grant can take, so the minimum over a path's grants is the base grant as soon as one router
/// paused the flow. On the wire it is the allocation byte [`incast_wire::d3::BASE_GRANT`] (0),
/// which decodes to this at any scale.
pub const BASE_GRANT: Rate = incast_wire::d3::BASE_GRANT as Rate;

/// How the header carries rates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateField {
    /// Exact integer rates in bytes per second (`[d3] quantize = false`): for studying the
    /// allocator without the field's rounding.
    Exact,
    /// The paper's 8-bit fields: `value x scale` bytes/µs, `value` in 0..=255 (Section 5).
    Quantized {
        /// The scale factor byte, at least 1 (see `incast_wire::d3::scale_for`).
        scale: u8,
    },
}

impl RateField {
    /// The paper's 8-bit field at the smallest scale that carries `fastest` (the fastest host
    /// link: 1 Gbps gets scale 1 and the paper's "1Gbps equates to a value of 125"), or exact
    /// rates when `quantize` is false.
    pub fn new(quantize: bool, fastest: Rate) -> Self {
        if quantize {
            RateField::Quantized { scale: incast_wire::d3::scale_for(fastest) }
        } else {
            RateField::Exact
        }
    }

    /// The smallest step between two rates the field carries: one unit of `scale` bytes/µs, or
    /// 1 B/s when exact.
    pub fn unit(self) -> Rate {
        match self {
            RateField::Exact => 1,
            RateField::Quantized { scale } => incast_wire::d3::decode_rate(1, scale),
        }
    }

    /// A desired rate as the header carries it: rounded up to whole units, so a positive need
    /// below one unit asks for one unit, and capped at the field's largest value.
    pub fn request(self, rate: Rate) -> Rate {
        match self {
            RateField::Exact => rate,
            RateField::Quantized { scale } => {
                incast_wire::d3::decode_rate(incast_wire::d3::encode_request(rate, scale), scale)
            }
        }
    }

    /// An allocation as the header carries it: truncated to whole units, as the router's integer
    /// bytes/µs arithmetic would compute it (Section 5, "Router overhead"), and capped at the
    /// field's largest value; [`BASE_GRANT`] when what is left is no more than `base_rate`. A fair
    /// share below one unit is thus a pause, never capacity the router does not have.
    pub fn grant(self, rate: Rate, base_rate: Rate) -> Rate {
        let carried = match self {
            RateField::Exact => rate,
            RateField::Quantized { scale } => {
                incast_wire::d3::decode_rate(incast_wire::d3::encode_grant(rate, scale), scale)
            }
        };
        if carried <= base_rate {
            BASE_GRANT
        } else {
            carried
        }
    }

    /// The rate a grant holds at a router: the base rate for [`BASE_GRANT`], else the grant.
    /// What a router adds to its allocation counter A, and takes back when a host returns the
    /// grant as a(t).
    pub fn held(grant: Rate, base_rate: Rate) -> Rate {
        if grant == BASE_GRANT {
            base_rate
        } else {
            grant
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3::rate::{base_rate, HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT};

    const GBPS: Rate = 125_000_000;
    const UNIT: Rate = 1_000_000;
    const BASE: Rate = base_rate(HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT);

    fn field() -> RateField {
        RateField::new(true, GBPS)
    }

    #[test]
    fn new_picks_scale_of_fastest_link_or_exact() {
        assert_eq!(field(), RateField::Quantized { scale: 1 });
        assert_eq!(RateField::new(true, 10 * GBPS), RateField::Quantized { scale: 5 });
        assert_eq!(RateField::new(false, GBPS), RateField::Exact);
        assert_eq!((field().unit(), RateField::Exact.unit()), (UNIT, 1));
    }

    #[test]
    fn request_rounds_needs_up_to_whole_units() {
        // 6 KB over 40 ms needs 150 KB/s: one unit.
        assert_eq!(field().request(150_000), UNIT);
        assert_eq!(field().request(0), 0);
        assert_eq!(field().request(1_000_001), 2 * UNIT);
        assert_eq!(field().request(u64::MAX), 255 * UNIT);
        assert_eq!(RateField::Exact.request(150_000), 150_000);
    }

    #[test]
    fn grant_truncates_and_sub_unit_is_base_grant() {
        assert_eq!(field().grant(1_999_999, BASE), UNIT);
        assert_eq!(field().grant(999_999, BASE), BASE_GRANT);
        assert_eq!(field().grant(BASE, BASE), BASE_GRANT);
        assert_eq!(field().grant(GBPS, BASE), GBPS);
        assert_eq!(field().grant(u64::MAX, BASE), 255 * UNIT);
        // Exact rates: a pause only at or below the base rate itself.
        assert_eq!(RateField::Exact.grant(BASE, BASE), BASE_GRANT);
        assert_eq!(RateField::Exact.grant(BASE + 1, BASE), BASE + 1);
        // A base rate above one unit (D2TCP's one segment per RTT) swallows the units below it.
        assert_eq!(field().grant(7_900_000, 7_500_000), BASE_GRANT);
        assert_eq!(field().grant(8_000_000, 7_500_000), 8 * UNIT);
    }

    #[test]
    fn held_base_grant_is_exactly_the_base_rate() {
        assert_eq!(RateField::held(BASE_GRANT, BASE), BASE);
        assert_eq!(RateField::held(3 * UNIT, BASE), 3 * UNIT);
    }
}
