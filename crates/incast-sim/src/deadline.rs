//! Whether a flow met its deadline: the one place incast decides it, for the flow table's
//! `met_deadline` and the summary's application throughput (D3 Section 6.1; D2TCP's missed
//! deadlines, Section 4). Python reads the verdict; it never re-decides it.

use incast_proto::time::Instant;

/// The verdict on a flow due at `due` (its absolute deadline; `None` without one) that finished
/// at `finished`, if it did, in a run that ended at `end`.
///
/// Met when it finished at or before its deadline. Missed when it finished after it, when it
/// was still running when the run ended at or after its deadline, or when it was `abandoned`
/// (it ended without completing, D3's quenching, so it never will finish, whenever the run
/// ended). Unknown (`None`) when it was still running and its deadline lay after the end of
/// the run: a longer run might have seen it meet it. `None` without a deadline too.
pub(crate) fn met_deadline(due: Option<Instant>, finished: Option<Instant>, abandoned: bool, end: Instant) -> Option<bool> {
    let due = due?;
    match finished {
        Some(done) => Some(done <= due),
        None if abandoned || due <= end => Some(false),
        None => None,
    }
}

/// The run's deadline tally: flows whose verdict is known, those that met their deadline, and
/// those the run could not judge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Flows with a deadline and a verdict.
    pub(crate) judged: u64,
    /// Of those, flows that met it.
    pub(crate) met: u64,
    /// Flows with a deadline past the end of the run, unfinished at its end.
    pub(crate) unknown: u64,
}

impl Tally {
    /// Counts one flow's verdict; `has_deadline` tells "unknown" from "no deadline".
    pub(crate) fn add(&mut self, has_deadline: bool, verdict: Option<bool>) {
        match verdict {
            Some(met) => {
                self.judged += 1;
                self.met += u64::from(met);
            }
            None => self.unknown += u64::from(has_deadline),
        }
    }

    /// Share of the judged flows that met their deadline (D3's application throughput); `None`
    /// when no flow could be judged.
    pub(crate) fn app_throughput(&self) -> Option<f64> {
        (self.judged > 0).then(|| self.met as f64 / self.judged as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use incast_proto::time::Duration;

    /// The run ends at 20 ms.
    const END: Instant = Instant::from_ps(Duration::from_ms(20).as_ps());

    fn at(ms: u64) -> Option<Instant> {
        Some(Instant::from_ps(Duration::from_ms(ms).as_ps()))
    }

    #[test]
    fn finished_flow_met_its_deadline_when_at_or_before_it() {
        assert_eq!(met_deadline(at(10), at(9), false, END), Some(true));
        assert_eq!(met_deadline(at(10), at(10), false, END), Some(true));
        // Finishing past the end of the run is impossible, but a deadline past it is not.
        assert_eq!(met_deadline(at(30), at(15), false, END), Some(true));
    }

    #[test]
    fn finished_late_flow_missed() {
        assert_eq!(met_deadline(at(10), at(11), false, END), Some(false));
    }

    #[test]
    fn unfinished_flow_missed_when_its_deadline_fell_inside_the_run() {
        assert_eq!(met_deadline(at(10), None, false, END), Some(false));
        assert_eq!(met_deadline(at(20), None, false, END), Some(false));
    }

    #[test]
    fn unfinished_flow_is_unknown_when_its_deadline_lies_past_the_end() {
        assert_eq!(met_deadline(at(21), None, false, END), None);
    }

    #[test]
    fn abandoned_flow_missed_whenever_the_run_ended() {
        assert_eq!(met_deadline(at(10), None, true, END), Some(false));
        assert_eq!(met_deadline(at(30), None, true, END), Some(false));
    }

    #[test]
    fn flow_without_deadline_has_no_verdict() {
        assert_eq!(met_deadline(None, at(5), false, END), None);
        assert_eq!(met_deadline(None, None, true, END), None);
    }

    #[test]
    fn tally_counts_unknowns_apart_from_flows_without_deadline() {
        let mut t = Tally::default();
        for (has_deadline, verdict) in [(true, Some(true)), (true, Some(false)), (true, None), (false, None)] {
            t.add(has_deadline, verdict);
        }
        assert_eq!(t, Tally { judged: 2, met: 1, unknown: 1 });
        assert_eq!(t.app_throughput(), Some(0.5));
        assert_eq!(Tally { unknown: 3, ..Tally::default() }.app_throughput(), None);
    }
}
