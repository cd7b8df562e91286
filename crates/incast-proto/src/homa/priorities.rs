//! Homa's priority levels (Montazeri et al., SIGCOMM 2018, Section 3.4): which of the switches'
//! strict-priority levels a packet rides in. The highest levels carry unscheduled packets, by
//! their message's size (shorter messages higher); the lowest carry scheduled packets, at the
//! level the receiver names in its GRANTs (the message with the fewest remaining bytes highest).
//! Level 0 is served first, as the engine's priority classes (and HomaSimulation's
//! `PriorityResolver`, whose 0 is its highest priority) number them.
//!
//! How the levels are divided and where the unscheduled cutoffs fall is computed from the
//! workload's message sizes ([`Priorities::from_sizes`]), as the paper's receivers do from the
//! traffic they see: the unscheduled levels get the share of the levels that unscheduled bytes
//! have of all bytes, and the cutoffs split the unscheduled bytes evenly among them.

/// The most priority levels Homa uses: the 8 of the paper's switches (Section 5: "8 priority
/// levels"), and the most `[switch] priority_classes` a port has.
pub const MAX_LEVELS: usize = 8;

/// Where a receiver's scheduled messages go among the scheduled levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduledLevels {
    /// The paper's (Section 3.4): k messages granted at once take the k lowest scheduled
    /// levels, the one with the fewest remaining bytes the highest of them, so that a shorter
    /// message arriving later finds a higher level free to preempt them with.
    Lowest,
    /// The ns-3 port's (`HomaRecvScheduler::SendAppropriateGrants`): the message with the fewest
    /// remaining bytes takes the highest scheduled level, the next one the level below, and so on.
    Highest,
}

/// How a host's packets choose their priority level: the number of levels, how many of them
/// (the highest) carry unscheduled packets, and the message sizes that divide those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priorities {
    levels: u8,
    unscheduled: u8,
    /// `cutoffs[i]` is the largest message whose unscheduled packets ride level `i`, for the
    /// first `unscheduled - 1` levels; larger messages ride the last unscheduled level.
    cutoffs: [u64; MAX_LEVELS - 1],
    placement: ScheduledLevels,
}

/// What is wrong with a set of priority settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrioritiesError {
    /// No level, or more than [`MAX_LEVELS`].
    Levels,
    /// No unscheduled level, or so many that no scheduled one is left on more than one level.
    UnscheduledLevels,
    /// More cutoffs than unscheduled levels less one, or cutoffs not strictly rising.
    Cutoffs,
}

impl Priorities {
    /// `levels` in all, the highest `unscheduled` for unscheduled packets, divided at
    /// `cutoffs` (rising message sizes, at most `unscheduled - 1` of them: fewer leave the
    /// last levels unused), scheduled messages placed as `placement` says.
    pub fn new(levels: u8, unscheduled: u8, cutoffs: &[u64], placement: ScheduledLevels) -> Result<Priorities, PrioritiesError> {
        if levels == 0 || usize::from(levels) > MAX_LEVELS {
            return Err(PrioritiesError::Levels);
        }
        // One level serves both kinds; with more, at least one is left for scheduled packets.
        let most = if levels == 1 { 1 } else { levels - 1 };
        if unscheduled == 0 || unscheduled > most {
            return Err(PrioritiesError::UnscheduledLevels);
        }
        if cutoffs.len() >= usize::from(unscheduled) || cutoffs.windows(2).any(|w| w[0] >= w[1]) {
            return Err(PrioritiesError::Cutoffs);
        }
        let mut all = [u64::MAX; MAX_LEVELS - 1];
        all[..cutoffs.len()].copy_from_slice(cutoffs);
        Ok(Priorities { levels, unscheduled, cutoffs: all, placement })
    }

    /// The paper's division for messages of `sizes` ((message bytes, probability) pairs, the
    /// probabilities summing to 1) with `unscheduled_bytes` sent blind, on `levels` levels
    /// (Section 3.4):
    ///
    /// - unscheduled levels: `unscheduled`, or else the unscheduled bytes' share of all bytes
    ///   times `levels`, rounded, at least 1 and leaving at least one scheduled level;
    /// - cutoffs: so that each unscheduled level carries an equal share of the unscheduled bytes
    ///   (a message of `s` bytes sends `min(s, unscheduled_bytes)` of them), shorter messages on
    ///   higher levels. Level `i`'s cutoff is the smallest size at which the cumulative share
    ///   reaches `(i + 1) / unscheduled`; a size that already holds the next share too is not
    ///   repeated (HomaSimulation's `PriorityResolver::setPrioCutOffs`), so a workload whose
    ///   bytes sit on few sizes leaves its last unscheduled levels unused.
    pub fn from_sizes(
        levels: u8,
        unscheduled: Option<u8>,
        sizes: &[(u64, f64)],
        unscheduled_bytes: u64,
        placement: ScheduledLevels,
    ) -> Result<Priorities, PrioritiesError> {
        let mut sorted: Vec<(u64, f64)> = sizes.iter().copied().filter(|&(_, p)| p > 0.0).collect();
        sorted.sort_by_key(|&(s, _)| s);
        let blind = |s: u64| s.min(unscheduled_bytes) as f64;
        let total: f64 = sorted.iter().map(|&(s, p)| s as f64 * p).sum();
        let blind_total: f64 = sorted.iter().map(|&(s, p)| blind(s) * p).sum();
        let most = if levels <= 1 { 1 } else { levels - 1 };
        let unscheduled = match unscheduled {
            Some(u) => u,
            None if total > 0.0 => ((blind_total / total * f64::from(levels)).round() as u8).clamp(1, most),
            None => 1,
        };
        let mut cutoffs = Vec::new();
        let mut cumulative = 0.0;
        let mut next = 1;
        for &(s, p) in &sorted {
            cumulative += blind(s) * p;
            // Rounding error must not push the last share past the total.
            while next < unscheduled && cumulative >= blind_total * f64::from(next) / f64::from(unscheduled) * (1.0 - 1e-12) {
                if cutoffs.last() != Some(&s) {
                    cutoffs.push(s);
                }
                next += 1;
            }
        }
        Priorities::new(levels, unscheduled, &cutoffs, placement)
    }

    /// All levels.
    pub fn levels(&self) -> u8 {
        self.levels
    }

    /// The levels of unscheduled packets (the highest ones, 0 up).
    pub fn unscheduled_levels(&self) -> u8 {
        self.unscheduled
    }

    /// The levels of scheduled packets (the lowest ones); at least 1.
    pub fn scheduled_levels(&self) -> u8 {
        (self.levels - self.unscheduled).max(1)
    }

    /// The cutoffs in effect: the largest message of each unscheduled level but the last.
    pub fn cutoffs(&self) -> &[u64] {
        let n = self.cutoffs.iter().position(|&c| c == u64::MAX).unwrap_or(self.cutoffs.len());
        &self.cutoffs[..n]
    }

    /// Where scheduled messages go.
    pub fn placement(&self) -> ScheduledLevels {
        self.placement
    }

    /// The level of the unscheduled packets of a message of `bytes`.
    pub fn unscheduled(&self, bytes: u64) -> u8 {
        let i = self.cutoffs().partition_point(|&c| c < bytes);
        i as u8
    }

    /// The level of the scheduled packets of the message ranked `rank` (0: fewest remaining
    /// bytes) among the `granted` messages a receiver grants at once. Beyond the scheduled
    /// levels, messages share the last one.
    pub fn scheduled(&self, rank: usize, granted: usize) -> u8 {
        let first = self.levels - self.scheduled_levels();
        let last = self.levels - 1;
        let span = usize::from(self.scheduled_levels());
        let level = match self.placement {
            ScheduledLevels::Lowest => usize::from(last) + 1 - granted.clamp(1, span) + rank,
            ScheduledLevels::Highest => usize::from(first) + rank,
        };
        level.min(usize::from(last)) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_refuses_levels_that_do_not_fit() {
        let lowest = ScheduledLevels::Lowest;
        assert_eq!(Priorities::new(0, 1, &[], lowest), Err(PrioritiesError::Levels));
        assert_eq!(Priorities::new(9, 1, &[], lowest), Err(PrioritiesError::Levels));
        assert_eq!(Priorities::new(8, 8, &[], lowest), Err(PrioritiesError::UnscheduledLevels));
        assert_eq!(Priorities::new(8, 0, &[], lowest), Err(PrioritiesError::UnscheduledLevels));
        assert_eq!(Priorities::new(8, 2, &[10, 20], lowest), Err(PrioritiesError::Cutoffs));
        assert_eq!(Priorities::new(8, 3, &[20, 10], lowest), Err(PrioritiesError::Cutoffs));
        assert!(Priorities::new(1, 1, &[], lowest).is_ok(), "one level serves both kinds");
    }

    #[test]
    fn unscheduled_level_rises_with_message_size_at_the_cutoffs() {
        let p = Priorities::new(8, 3, &[100, 1_000], ScheduledLevels::Lowest).unwrap();
        assert_eq!([p.unscheduled(1), p.unscheduled(100), p.unscheduled(101)], [0, 0, 1]);
        assert_eq!([p.unscheduled(1_000), p.unscheduled(1_001), p.unscheduled(u64::MAX)], [1, 2, 2]);
    }

    #[test]
    fn scheduled_messages_take_the_lowest_levels_the_shortest_highest() {
        // 3 unscheduled levels (0-2), 5 scheduled (3-7).
        let p = Priorities::new(8, 3, &[], ScheduledLevels::Lowest).unwrap();
        assert_eq!(p.scheduled(0, 1), 7, "one message: the lowest level");
        assert_eq!([p.scheduled(0, 2), p.scheduled(1, 2)], [6, 7]);
        assert_eq!((0..5).map(|r| p.scheduled(r, 5)).collect::<Vec<_>>(), [3, 4, 5, 6, 7]);
        assert_eq!([p.scheduled(0, 7), p.scheduled(5, 7), p.scheduled(6, 7)], [3, 7, 7], "beyond the levels: the last");
    }

    #[test]
    fn the_ns3_port_places_scheduled_messages_from_the_top() {
        let p = Priorities::new(8, 2, &[], ScheduledLevels::Highest).unwrap();
        assert_eq!([p.scheduled(0, 1), p.scheduled(0, 3), p.scheduled(2, 3), p.scheduled(9, 10)], [2, 2, 4, 7]);
    }

    #[test]
    fn cutoffs_split_the_unscheduled_bytes_evenly() {
        // Sizes 100, 200, 400 B with probabilities 0.4, 0.4, 0.2: bytes 40, 80, 80 of 200 (all
        // unscheduled below 1000 B). Two levels: half the bytes (100) are reached at 200 B.
        let sizes = [(100, 0.4), (200, 0.4), (400, 0.2)];
        let p = Priorities::from_sizes(8, Some(2), &sizes, 1_000, ScheduledLevels::Lowest).unwrap();
        assert_eq!(p.cutoffs(), [200]);
        // Four levels: shares 50, 100, 150 reached at 200, 200 (repeated: dropped), 400.
        let p = Priorities::from_sizes(8, Some(4), &sizes, 1_000, ScheduledLevels::Lowest).unwrap();
        assert_eq!(p.cutoffs(), [200, 400]);
        // Only the first 150 B of a message are unscheduled: bytes 40, 60, 30 of 130.
        let p = Priorities::from_sizes(8, Some(2), &sizes, 150, ScheduledLevels::Lowest).unwrap();
        assert_eq!(p.cutoffs(), [200], "65 B are reached at 200 B");
        let p = Priorities::from_sizes(8, Some(3), &sizes, 150, ScheduledLevels::Lowest).unwrap();
        assert_eq!(p.cutoffs(), [200], "43.3 and 86.7 B are both reached at 200 B");
    }

    #[test]
    fn unscheduled_levels_follow_the_unscheduled_share_of_bytes() {
        let lowest = ScheduledLevels::Lowest;
        // Every message fits in the unscheduled bytes: all but one level.
        let p = Priorities::from_sizes(8, None, &[(100, 1.0)], 10_000, lowest).unwrap();
        assert_eq!((p.unscheduled_levels(), p.scheduled_levels()), (7, 1));
        // Half the bytes unscheduled: 10 kB messages and 30 kB ones, equally likely, 10 kB blind
        // (20 of 40 kB): 4 levels.
        let p = Priorities::from_sizes(8, None, &[(10_000, 0.5), (30_000, 0.5)], 10_000, lowest).unwrap();
        assert_eq!(p.unscheduled_levels(), 4);
        // Almost nothing unscheduled: still one level.
        let p = Priorities::from_sizes(8, None, &[(10_000_000, 1.0)], 10_000, lowest).unwrap();
        assert_eq!((p.unscheduled_levels(), p.scheduled_levels()), (1, 7));
        // On one level, everything shares it.
        let p = Priorities::from_sizes(1, None, &[(100, 1.0)], 10_000, lowest).unwrap();
        assert_eq!((p.unscheduled(100), p.scheduled(0, 1)), (0, 0));
    }
}
