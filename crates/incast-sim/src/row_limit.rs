//! The limit on what is recorded port by port (the offer log's rows, `offer_log_max_rows`; the
//! capture's packets, `capture_max_packets`), kept the same for any number of threads.
//!
//! The one loop keeps the first rows in its order of events. A run cut into parts
//! (`crate::rounds`) records each port's rows in one part, whose events run in the same order
//! whatever engine runs it, and after the run joins the engines' rows and orders them by time,
//! then port, each port's in the order recorded: the same rows for any number of threads. The
//! limit is kept the same way: an engine keeps recording past it while rows fall at the
//! instant of its last row within it, so that it never cuts an instant (`keeps`). If T is the
//! instant of the limit-th row of all the engines' rows in that order, each engine has fewer
//! than the limit before T and so keeps every row up to T: the joined rows hold the first rows
//! of all, which are kept, and the rest are counted missed (`order_and_cut`), as one engine
//! would have.

use incast_proto::time::Instant;

/// The limit on the rows of a log kept port by port.
#[derive(Debug)]
pub(crate) struct RowLimit {
    max: u64,
    /// A run cut into parts: rows at the instant of the last one kept are kept past `max`.
    in_parts: bool,
    /// The instant of the last row kept.
    last: Option<Instant>,
}

impl RowLimit {
    /// A limit of `max` rows.
    pub(crate) fn new(max: u64) -> RowLimit {
        RowLimit { max, in_parts: false, last: None }
    }

    /// The limit of a run cut into parts (the module's comment).
    pub(crate) fn cut_into_parts(&mut self) {
        self.in_parts = true;
    }

    /// Whether the run is cut into parts: its rows are ordered and cut after it.
    pub(crate) fn in_parts(&self) -> bool {
        self.in_parts
    }

    /// Whether a row at `now`, with `rows` kept before it, is kept too: below the limit, or in a
    /// run cut into parts at the instant of the last row kept.
    pub(crate) fn keeps(&mut self, rows: u64, now: Instant) -> bool {
        let keep = rows < self.max || (self.in_parts && self.last == Some(now));
        if keep {
            self.last = Some(now);
        }
        keep
    }

    /// A run cut into parts, its engines' rows joined: orders `rows` by their (instant, port)
    /// `key`, stably (a port's rows, all from one engine, keep the order they were recorded
    /// in), keeps the first `max` and returns how many it left out.
    pub(crate) fn order_and_cut<T>(&self, rows: &mut Vec<T>, key: impl FnMut(&T) -> (Instant, u32)) -> u64 {
        rows.sort_by_key(key);
        let kept = rows.len().min(usize::try_from(self.max).unwrap_or(usize::MAX));
        let cut = rows.len() - kept;
        rows.truncate(kept);
        cut as u64
    }
}
