//! A flow's ideal completion time: the same flow alone on the idle network, along its own path,
//! its sender sending at line rate from the first byte. The field reports flow completion times
//! as slowdowns, FCT over this ideal (pFabric, SIGCOMM 2013, and every paper that compares with
//! it), so that flows of every size can share one axis.
//!
//! The public simulators differ in the details: YAPS (NetSys/simulator, `get_oracle_fct`) models
//! cut-through switches, one propagation round trip and each packet serialized once at the host
//! rate; HPCC's analysis adds one packet's serialization per hop and the bytes at the bottleneck
//! (store-and-forward). incast's switches store and forward, so its ideal does too, and it is
//! exact for its own network: the time at which the receiver would hold the last byte if the
//! flow's packets were the only ones, sent back to back (`tandem` below), after the handshake
//! the flow's transport makes (TCP's SYN and SYN/ACK when the stack has `handshake`, D3's and
//! RCPdc's SYN rate request and its grant, never for a later message of a persistent connection).
//! Slow start, delayed ACKs and the receiver's processing are left out, as in those simulators: the
//! slowdown then says how far a transport is from the network's limit, not from its own. D3's
//! 22 B congestion header is counted on its SYN and the answer; the one data packet per RTT that
//! carries a later request is counted at its plain size (22 B in a 1500 B packet).

use incast_proto::time::Duration;

use crate::scenario::LinkSpec;

/// The packets of a transfer: `count` packets, every one of `full_bytes` on the wire but the
/// last, of `last_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Train {
    pub(crate) count: u64,
    pub(crate) full_bytes: u64,
    pub(crate) last_bytes: u64,
}

impl Train {
    /// `payload` bytes (at least 1) in segments of `mss`, each with `header` bytes on the wire.
    pub(crate) fn of(payload: u64, mss: u64, header: u64) -> Train {
        let payload = payload.max(1);
        let count = payload.div_ceil(mss);
        Train { count, full_bytes: mss + header, last_bytes: payload - (count - 1) * mss + header }
    }

    /// One packet of `bytes` on the wire.
    pub(crate) fn single(bytes: u64) -> Train {
        Train { count: 1, full_bytes: bytes, last_bytes: bytes }
    }
}

/// When the last bit of `train` reaches the far end of `path` (its links from the sender's NIC
/// to the receiver), the first packet leaving at 0: exact for store-and-forward hops with nothing
/// else on them. Equal packets through a tandem leave hop h at sum_{j<=h} s_j + (i - 1) max_{j<=h}
/// s_j (the slowest hop so far spaces them); the last, possibly shorter, packet then follows
/// the one before it hop by hop. Propagation delays add once: every packet pays the same.
pub(crate) fn tandem<'a>(path: impl IntoIterator<Item = &'a LinkSpec>, train: Train) -> Duration {
    // In picoseconds; saturating, so an absurd flow gives a huge ideal rather than a wrap.
    let (mut sum, mut slowest, mut last, mut propagation) = (0u64, 0u64, 0u64, 0u64);
    for (h, link) in path.into_iter().enumerate() {
        let full = link.rate.tx_time(train.full_bytes).as_ps();
        sum = sum.saturating_add(full);
        slowest = slowest.max(full);
        // When the packet before the last leaves this hop (none before it if there is one packet).
        let before = match train.count {
            0 | 1 => 0,
            n => sum.saturating_add(slowest.saturating_mul(n - 2)),
        };
        let ready = if h == 0 { before } else { last.max(before) };
        last = ready.saturating_add(link.rate.tx_time(train.last_bytes).as_ps());
        propagation = propagation.saturating_add(link.delay.as_ps());
    }
    Duration::from_ps(last.saturating_add(propagation))
}

/// The ideal completion time of `payload` bytes over `forward` (sender to receiver) with
/// `reverse` the way back: the handshake's round trip (`handshake`: the bytes of the opening
/// packet and of its answer) and then the data at line rate.
pub(crate) fn ideal_fct<'a>(
    forward: impl IntoIterator<Item = &'a LinkSpec> + Clone,
    reverse: impl IntoIterator<Item = &'a LinkSpec>,
    payload: u64,
    mss: u64,
    header: u64,
    handshake: Option<(u64, u64)>,
) -> Duration {
    let opening = handshake.map_or(0, |(syn, answer)| {
        tandem(forward.clone(), Train::single(syn)).as_ps().saturating_add(tandem(reverse, Train::single(answer)).as_ps())
    });
    Duration::from_ps(opening.saturating_add(tandem(forward, Train::of(payload, mss, header)).as_ps()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use incast_proto::time::BitsPerSec;

    fn link(gbps: u64, delay_ns: u64) -> LinkSpec {
        LinkSpec { rate: BitsPerSec(gbps * 1_000_000_000), delay: Duration::from_ns(delay_ns) }
    }

    /// One 1500 B packet across a 1 Gbps star (two hops of 10 us): 12 us of serialization at
    /// each hop and 20 us of propagation; with the `linux` handshake (60 B SYN and SYN/ACK, 0.48
    /// us a hop) one round trip of 2 x (2 x 0.48 + 20) = 41.92 us before it.
    #[test]
    fn one_packet_over_a_star_by_hand() {
        let path = [link(1, 10_000), link(1, 10_000)];
        assert_eq!(ideal_fct(&path, &path, 1448, 1448, 52, None), Duration::from_ns(44_000));
        assert_eq!(ideal_fct(&path, &path, 1448, 1448, 52, Some((60, 60))), Duration::from_ns(44_000 + 41_920));
    }

    /// Three full packets across the leaf-spine (10, 40, 40, 10 Gbps; 0.2 us links): 1.2 us a
    /// packet at the host links, 0.3 us in the fabric; the first arrives after 3.0 us of
    /// serialization and the other two 1.2 us apart (the host link spaces them): 5.4 us, plus
    /// 0.8 us of propagation.
    #[test]
    fn a_train_over_the_leaf_spine_is_spaced_by_its_slowest_hop() {
        let path = [link(10, 200), link(40, 200), link(40, 200), link(10, 200)];
        assert_eq!(tandem(&path, Train::of(3 * 1460, 1460, 40)), Duration::from_ns(6_200));
        // A short last packet (100 B of payload, 140 B on the wire: 0.112 us at 10 Gbps, 0.028
        // us at 40) leaves the first hop right behind the two full ones (2.4 + 0.112 us) and then
        // waits behind the second at every hop: it leaves the last 0.112 us after the second
        // (4.2 us), 4.312 us, plus 0.8 us.
        assert_eq!(tandem(&path, Train::of(2 * 1460 + 100, 1460, 40)), Duration::from_ns(5_112));
    }

    /// A slow hop in the middle spaces the packets for every hop after it.
    #[test]
    fn a_bottleneck_in_the_middle_sets_the_spacing() {
        let path = [link(10, 0), link(1, 0), link(10, 0)];
        // 1500 B: 1.2 us, 12 us, 1.2 us. Ten packets: 14.4 us for the first, 9 x 12 us after it.
        assert_eq!(tandem(&path, Train::of(10 * 1460, 1460, 40)), Duration::from_ns(14_400 + 108_000));
    }

    #[test]
    fn sizes_round_up_to_whole_segments_and_an_empty_flow_sends_one_byte() {
        assert_eq!(Train::of(2_921, 1460, 40), Train { count: 3, full_bytes: 1500, last_bytes: 41 });
        assert_eq!(Train::of(0, 1460, 40), Train { count: 1, full_bytes: 1500, last_bytes: 41 });
    }
}
