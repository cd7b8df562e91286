//! NewReno's response to ECN (RFC 3168 Section 6.1.2): an ECN-Echo is treated like a loss and
//! halves the window; everything else is the shared window skeleton.

use super::cut::CutContext;

/// The NewReno policy: no estimator, a fixed multiplicative decrease of 1/2.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct NewReno;

impl NewReno {
    /// The window after an ECN-Echo: half the current one (RFC 3168 Section 6.1.2).
    pub(crate) fn ecn_cut(&self, ctx: &CutContext) -> u64 {
        ctx.cwnd_bytes / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Instant;

    #[test]
    fn newreno_ecn_cut_halves_window() {
        let ctx = CutContext {
            now: Instant::ZERO,
            cwnd_bytes: 20_000,
            srtt: None,
            remaining_bytes: None,
            unsent_bytes: None,
            deadline: None,
        };
        assert_eq!(NewReno.ecn_cut(&ctx), 10_000);
    }
}
