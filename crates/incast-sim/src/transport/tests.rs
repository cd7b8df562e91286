//! Every transport of the registry through the scripted harness (`harness::Pair`): it delivers
//! every byte over a lossless path, sends again what the path lost, and sends the same packets
//! for the same script.

use incast_proto::time::Duration;

use super::harness::Pair;
use crate::packet::PacketKind;
use crate::scenario::Protocol;

/// Sizes that cover a header-only flow's neighbours, one segment, a few, and many windows.
const SIZES: [u64; 5] = [1, 1_000, 1_460, 20_000, 300_000];

#[test]
fn every_transport_delivers_every_byte_over_a_lossless_path() {
    for &protocol in Protocol::ALL {
        // A receiver need not answer a message its sender may send whole (Homa's, below
        // RTTbytes), but every transport's answers some of these.
        let mut answered = false;
        for size in SIZES {
            let mut pair = Pair::new(protocol, size);
            assert!(pair.run(Duration::from_secs(1)), "{protocol:?} {size} B: the sender never finished");
            assert_eq!(pair.delivered(), size, "{protocol:?} {size} B");
            assert_eq!(pair.retransmitted(), 0, "{protocol:?} {size} B: nothing was lost");
            answered |= pair.log.iter().any(|&(k, ..)| k == PacketKind::Ack);
        }
        assert!(answered, "{protocol:?}: acknowledged");
    }
}

#[test]
fn every_transport_sends_again_what_the_path_lost() {
    for &protocol in Protocol::ALL {
        // The handshake's or the first window's second packet, and a later one.
        let mut pair = Pair::new(protocol, 300_000).dropping(&[1, 7]);
        assert!(pair.run(Duration::from_secs(5)), "{protocol:?}: the sender never finished");
        assert_eq!(pair.delivered(), 300_000, "{protocol:?}: every byte, in order");
        let protocol_name = protocol.name();
        let data: Vec<u64> = pair.log.iter().filter(|&&(k, _, len, _)| k == PacketKind::Data && len > 0).map(|&(_, seq, ..)| seq).collect();
        let mut seen = std::collections::HashSet::new();
        assert!(data.iter().any(|seq| !seen.insert(seq)), "{protocol_name}: some data was sent twice");
    }
}

#[test]
fn every_transport_sends_the_same_packets_for_the_same_script() {
    for &protocol in Protocol::ALL {
        let script = || {
            let mut pair = Pair::new(protocol, 50_000).dropping(&[3]);
            assert!(pair.run(Duration::from_secs(5)), "{protocol:?}");
            pair.log
        };
        assert_eq!(script(), script(), "{protocol:?}");
    }
}
