//! Sorted, disjoint, non-adjacent byte ranges `[start, end)`, as both ends of a SACK
//! connection keep them: the sender's SACKed ranges and resends (`Scoreboard`) and the
//! receiver's out-of-order data (`TcpReceiver`).

/// Adds `[start, end)` to `ranges`, merging every range it overlaps or touches. Returns the
/// merged range that now holds it, and how many of that range's bytes were already held.
pub(crate) fn merge(ranges: &mut Vec<(u64, u64)>, start: u64, end: u64) -> ((u64, u64), u64) {
    // The first range that overlaps or touches [start, end).
    let first = ranges.partition_point(|&(_, e)| e < start);
    let mut last = first;
    let (mut s, mut e) = (start, end);
    let mut held = 0;
    while last < ranges.len() && ranges[last].0 <= end {
        let (rs, re) = ranges[last];
        held += re - rs;
        s = s.min(rs);
        e = e.max(re);
        last += 1;
    }
    if first == last {
        ranges.insert(first, (s, e));
    } else {
        ranges[first] = (s, e);
        ranges.drain(first + 1..last);
    }
    ((s, e), held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_joins_what_it_overlaps_or_touches_and_counts_what_was_held() {
        let mut r = vec![(10, 20), (30, 40), (50, 60)];
        assert_eq!(merge(&mut r, 0, 5), ((0, 5), 0));
        assert_eq!(merge(&mut r, 20, 30), ((10, 40), 20));
        assert_eq!(r, vec![(0, 5), (10, 40), (50, 60)]);
        assert_eq!(merge(&mut r, 35, 55), ((10, 60), 40));
        assert_eq!(r, vec![(0, 5), (10, 60)]);
        assert_eq!(merge(&mut r, 70, 80), ((70, 80), 0));
        assert_eq!(r, vec![(0, 5), (10, 60), (70, 80)]);
    }
}
