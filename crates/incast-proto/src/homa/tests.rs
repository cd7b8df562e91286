//! Homa's state machines, scripted (smoltcp's `socket/tcp.rs`, named state_event_expectation)
//! and through the many-to-one harness (`harness.rs`): GRANT scheduling, priority assignment and
//! loss recovery, each against what the paper's rules give by hand.

use super::config::{HomaConfig, ResendTimer};
use super::harness::{Harness, Message, Seen};
use super::header::{HomaHeader, MAX_PAYLOAD};
use super::priorities::{Priorities, ScheduledLevels};
use super::receiver::HomaReceiver;
use super::sender::HomaSender;
use crate::tcp::DataSegment;
use crate::time::{Duration, Instant};

/// RTTbytes of the tests: 7 full packets.
const RTT: u64 = 7 * MAX_PAYLOAD as u64;
const P: u64 = MAX_PAYLOAD as u64;

/// 8 levels, 2 unscheduled divided at 3 packets, 6 scheduled (2-7), `overcommitment` granted at
/// once.
fn config(overcommitment: u32) -> HomaConfig {
    let priorities = Priorities::new(8, 2, &[3 * P], ScheduledLevels::Lowest).unwrap();
    HomaConfig { overcommitment, ..HomaConfig::paper(RTT, priorities) }
}

fn at(us: u64) -> Instant {
    Instant::ZERO + Duration::from_us(us)
}

/// Bytes `[seq, seq + len)` of a message.
fn data(seq: u64, len: u64) -> DataSegment {
    DataSegment { seq, len: len as u32, header_bytes: 58, ts: Instant::ZERO, ect: false, ce: false, retransmission: false, syn: false }
}

/// Every packet a sender hands over now, as (first byte, length, level).
fn drain(s: &mut HomaSender, now: Instant) -> Vec<(u64, u32, u8)> {
    std::iter::from_fn(|| s.poll_transmit(now)).map(|p| (p.data.seq, p.data.len, p.header.priority())).collect()
}

// ---- the sender -------------------------------------------------------------------------------

#[test]
fn new_message_sends_rtt_bytes_unscheduled_at_its_size_level_then_waits() {
    // 20 packets: above the 3-packet cutoff, so level 1; 7 packets go at once.
    let mut s = HomaSender::new(config(4), 20 * P, Instant::ZERO);
    let sent = drain(&mut s, Instant::ZERO);
    assert_eq!(sent, (0..7).map(|i| (i * P, MAX_PAYLOAD, 1)).collect::<Vec<_>>());
    // A 2-packet message is below the cutoff: level 0, and all of it goes.
    let mut small = HomaSender::new(config(4), 2 * P - 100, Instant::ZERO);
    assert_eq!(drain(&mut small, Instant::ZERO), [(0, MAX_PAYLOAD, 0), (P, MAX_PAYLOAD - 100, 0)]);
}

#[test]
fn grant_lets_scheduled_bytes_go_at_the_granted_level() {
    let mut s = HomaSender::new(config(4), 20 * P, Instant::ZERO);
    let _ = drain(&mut s, Instant::ZERO);
    s.handle_grant(at(10), 9 * P, 5);
    assert_eq!(drain(&mut s, at(10)), [(7 * P, MAX_PAYLOAD, 5), (8 * P, MAX_PAYLOAD, 5)]);
    // An older grant (reordered) moves nothing back; the level follows the latest GRANT.
    s.handle_grant(at(11), 8 * P, 4);
    assert_eq!(drain(&mut s, at(11)), []);
    s.handle_grant(at(12), 30 * P, 3);
    assert_eq!(drain(&mut s, at(12)).len(), 11, "up to the message's end");
    assert_eq!(s.bytes_left(), 0);
}

#[test]
fn unscheduled_bytes_end_a_packet_of_their_own() {
    // RTTbytes of 9,328 B (HomaSimulation's): six full packets and one of 676 B, then full
    // scheduled packets.
    let priorities = Priorities::new(8, 1, &[], ScheduledLevels::Lowest).unwrap();
    let mut s = HomaSender::new(HomaConfig::paper(9_328, priorities), 20_000, Instant::ZERO);
    let sent = drain(&mut s, Instant::ZERO);
    assert_eq!(sent.last(), Some(&(6 * P, 676, 0)));
    s.handle_grant(at(5), 20_000, 7);
    // 10,672 B left: seven full packets and 578 B.
    let scheduled = drain(&mut s, at(5));
    assert_eq!(scheduled.len(), 8);
    assert_eq!((scheduled[0], scheduled[7]), ((9_328, MAX_PAYLOAD, 7), (9_328 + 7 * P, 578, 7)));
}

#[test]
fn resend_sends_the_range_again_or_busy_when_the_queue_holds_the_message() {
    let mut s = HomaSender::new(config(4), 20 * P, Instant::ZERO);
    let _ = drain(&mut s, Instant::ZERO);
    s.handle_resend(at(100), 2 * P, (2 * P) as u32, 6, false);
    assert_eq!(drain(&mut s, at(100)), [(2 * P, MAX_PAYLOAD, 6), (3 * P, MAX_PAYLOAD, 6)]);
    assert_eq!(s.stats().retransmitted_bytes, 2 * P);
    // Busy: a BUSY (header only) instead of the bytes.
    s.handle_resend(at(200), 0, MAX_PAYLOAD, 6, true);
    let busy = s.poll_transmit(at(200)).expect("a BUSY");
    assert_eq!((busy.header, busy.data.len), (HomaHeader::Busy, 0));
    assert_eq!(s.poll_transmit(at(200)), None);
    assert_eq!(s.stats().busy, 1);
    // A RESEND also grants what it names.
    s.handle_resend(at(300), 7 * P, MAX_PAYLOAD, 6, false);
    assert_eq!(drain(&mut s, at(300)), [(7 * P, MAX_PAYLOAD, 6)]);
}

#[test]
fn sender_heard_from_nobody_sends_its_first_packet_again_after_twice_the_timeout() {
    let mut s = HomaSender::new(config(4), 2 * P, Instant::ZERO);
    let _ = drain(&mut s, Instant::ZERO);
    let due = s.poll_timeout().expect("armed");
    assert_eq!(due, at(10_000), "twice the 5 ms RESEND timeout");
    s.handle_timeout(due);
    assert_eq!(drain(&mut s, due), [(0, MAX_PAYLOAD, 0)]);
    assert_eq!(s.stats().probes, 1);
    // Once delivered, nothing more.
    s.handle_delivered();
    assert_eq!((s.poll_timeout(), s.is_complete()), (None, true));
    // A message the receiver has answered is its receiver's to recover: no probe.
    let mut t = HomaSender::new(config(4), 20 * P, Instant::ZERO);
    let _ = drain(&mut t, Instant::ZERO);
    t.handle_grant(at(5), 8 * P, 7);
    assert_eq!(t.poll_timeout(), None);
}

// ---- the receiver -----------------------------------------------------------------------------

/// Host `sender`'s message `id` of `packets` packets: its packet `n` arrives at `now`.
fn arrive(r: &mut HomaReceiver, now: Instant, id: u64, sender: u32, packets: u64, n: u64) {
    let size = packets * P;
    r.handle_data(now, id, sender, size, 1, &data(n * P, P.min(size - n * P)));
}

fn controls(r: &mut HomaReceiver, id: u64) -> Vec<HomaHeader> {
    std::iter::from_fn(|| r.poll_control(id)).collect()
}

#[test]
fn receiver_keeps_rtt_bytes_granted_beyond_what_arrived() {
    let mut r = HomaReceiver::new(config(4));
    // 20 packets; the first arrives: 1 received, so 8 packets granted (7 beyond), level 7 (one
    // message granted: the lowest level).
    arrive(&mut r, at(1), 1, 5, 20, 0);
    assert_eq!(controls(&mut r, 1), [HomaHeader::Grant { offset: 8 * P, priority: 7 }]);
    // Each further packet: one more.
    arrive(&mut r, at(2), 1, 5, 20, 1);
    assert_eq!(controls(&mut r, 1), [HomaHeader::Grant { offset: 9 * P, priority: 7 }]);
    // Never past the message.
    for n in 2..15 {
        arrive(&mut r, at(2 + n), 1, 5, 20, n);
    }
    assert_eq!(r.grant_of(1), Some((20 * P, false)), "fully granted: no longer among the granted");
    // A message that fits in RTTbytes is never granted.
    arrive(&mut r, at(30), 2, 6, 3, 0);
    assert_eq!(controls(&mut r, 2), []);
}

#[test]
fn receiver_grants_the_fewest_remaining_bytes_first_up_to_the_overcommitment() {
    let mut r = HomaReceiver::new(config(2));
    // Three senders' messages of 30, 20 and 40 packets, one packet each so far.
    arrive(&mut r, at(1), 1, 11, 30, 0);
    arrive(&mut r, at(2), 2, 12, 20, 0);
    arrive(&mut r, at(3), 3, 13, 40, 0);
    // Two granted: the 20-packet one at the higher of the two lowest levels, the 30-packet one
    // below it; the 40-packet one waits.
    assert_eq!(r.grant_of(2), Some((8 * P, true)));
    assert_eq!(r.grant_of(1), Some((8 * P, true)));
    assert_eq!(r.grant_of(3), Some((7 * P, false)), "only its unscheduled bytes");
    let last = |r: &mut HomaReceiver, id| controls(r, id).last().copied();
    assert_eq!(last(&mut r, 2), Some(HomaHeader::Grant { offset: 8 * P, priority: 6 }));
    assert_eq!(last(&mut r, 1), Some(HomaHeader::Grant { offset: 8 * P, priority: 7 }));
}

#[test]
fn receiver_grants_one_message_per_sender() {
    let mut r = HomaReceiver::new(config(4));
    arrive(&mut r, at(1), 1, 11, 30, 0);
    arrive(&mut r, at(2), 2, 11, 20, 0);
    arrive(&mut r, at(3), 3, 12, 40, 0);
    // Sender 11's shorter message and sender 12's; not sender 11's longer one.
    assert_eq!([r.grant_of(2).unwrap().1, r.grant_of(1).unwrap().1, r.grant_of(3).unwrap().1], [true, false, true]);
}

#[test]
fn receiver_wakes_the_next_message_when_a_granted_one_is_fully_granted() {
    let mut r = HomaReceiver::new(config(1));
    arrive(&mut r, at(1), 1, 11, 10, 0);
    arrive(&mut r, at(2), 2, 12, 20, 0);
    let _ = (controls(&mut r, 1), controls(&mut r, 2));
    assert_eq!(r.poll_wake(), None);
    // Message 1 gets its last grant with its third packet (3 received + 7 = 10): message 2 is
    // granted in the same pass, and woken, since the call was about message 1.
    arrive(&mut r, at(3), 1, 11, 10, 1);
    arrive(&mut r, at(4), 1, 11, 10, 2);
    assert_eq!(controls(&mut r, 1), [HomaHeader::Grant { offset: 9 * P, priority: 7 }, HomaHeader::Grant { offset: 10 * P, priority: 7 }]);
    arrive(&mut r, at(5), 1, 11, 10, 3);
    assert_eq!(r.poll_wake(), Some(2));
    assert_eq!(controls(&mut r, 2), [HomaHeader::Grant { offset: 8 * P, priority: 7 }]);
}

#[test]
fn silent_message_gets_a_resend_for_each_missing_range_after_the_timeout() {
    let mut r = HomaReceiver::new(config(4));
    // 10 packets, 7 unscheduled: 0, 1 and 4 arrive; 2, 3, 5 and 6 are lost.
    for n in [0, 1, 4] {
        arrive(&mut r, at(n), 1, 11, 10, n);
    }
    let grant = controls(&mut r, 1);
    assert_eq!(grant.last(), Some(&HomaHeader::Grant { offset: 10 * P, priority: 7 }));
    let due = r.poll_timeout(1).expect("armed");
    assert_eq!(due, at(5_000), "5 ms after the first packet");
    r.handle_timeout(due, 1);
    // Not silent: the last packet came at 4 us; it waits 5 ms from then.
    assert_eq!(controls(&mut r, 1), []);
    let due = r.poll_timeout(1).unwrap();
    assert_eq!(due, at(5_004));
    r.handle_timeout(due, 1);
    assert_eq!(
        controls(&mut r, 1),
        [
            HomaHeader::Resend { start: 2 * P, len: 2 * P as u32, priority: 7 },
            HomaHeader::Resend { start: 5 * P, len: 5 * P as u32, priority: 7 },
        ]
    );
    // A BUSY is word from the sender: the next RESEND waits 5 ms from it.
    r.handle_busy(at(6_000), 1);
    r.handle_timeout(at(10_004), 1);
    assert_eq!(controls(&mut r, 1), []);
    assert_eq!(r.poll_timeout(1), Some(at(11_000)));
}

#[test]
fn ns3_periodic_timer_asks_again_for_packets_still_on_their_way() {
    // The ns-3 port's timer fires every timeout whatever arrives: with 1 ms and a packet of the
    // granted range 1.5 ms late (queued, not lost), it asks for it though nothing was lost.
    let periodic = HomaConfig { resend_timer: ResendTimer::Periodic, resend_timeout: Duration::from_ms(1), ..config(4) };
    let mut r = HomaReceiver::new(periodic);
    for n in 0..7 {
        arrive(&mut r, at(n), 1, 11, 20, n);
    }
    let _ = controls(&mut r, 1);
    // At 1 ms: the granted range before this tick was the 7 unscheduled packets, all here.
    r.handle_timeout(at(1_000), 1);
    assert_eq!(controls(&mut r, 1), []);
    // At 2 ms: packets 7 to 13 (granted before the previous tick) have not arrived.
    r.handle_timeout(at(2_000), 1);
    assert_eq!(controls(&mut r, 1), [HomaHeader::Resend { start: 7 * P, len: 7 * P as u32, priority: 7 }]);
    // The paper's timer waits for 5 ms of silence.
    let mut r = HomaReceiver::new(config(4));
    for n in 0..7 {
        arrive(&mut r, at(n), 1, 11, 20, n);
    }
    r.handle_timeout(at(2_000), 1);
    assert!(controls(&mut r, 1).iter().all(|c| matches!(c, HomaHeader::Grant { .. })), "grants, no RESEND");
}

#[test]
fn duplicate_bytes_are_counted_and_completion_acknowledged_with_acks() {
    let acks = HomaConfig { ack: true, ..config(4) };
    let mut r = HomaReceiver::new(acks);
    arrive(&mut r, at(1), 1, 11, 2, 0);
    arrive(&mut r, at(2), 1, 11, 2, 0);
    arrive(&mut r, at(3), 1, 11, 2, 1);
    assert!(r.is_complete(1));
    assert_eq!((r.delivered(1), r.stats(1).duplicate_bytes), (2 * P, P));
    assert_eq!(controls(&mut r, 1), [HomaHeader::Ack]);
    // A late copy: the ACK may have been lost, so again.
    arrive(&mut r, at(4), 1, 11, 2, 1);
    assert_eq!(controls(&mut r, 1), [HomaHeader::Ack]);
}

// ---- through the harness ----------------------------------------------------------------------

fn message(host: u32, packets: u64, start_us: u64) -> Message {
    Message { host, size: packets * P, start: Duration::from_us(start_us) }
}

#[test]
fn incast_delivers_every_message_and_the_shortest_first() {
    // Four senders of 100, 50, 20 and 5 packets at once into one receiver: SRPT at the receiver
    // finishes them shortest first.
    let messages = [message(1, 100, 0), message(2, 50, 0), message(3, 20, 0), message(4, 5, 0)];
    let mut h = Harness::new(config(2), &messages);
    assert!(h.run(Duration::from_ms(50)));
    let done: Vec<Instant> = (0..4).map(|i| h.completed(i).expect("complete")).collect();
    assert!(done[3] < done[2] && done[2] < done[1] && done[1] < done[0], "{done:?}");
    assert!(h.most_granted <= 2, "never more than the overcommitment granted: {}", h.most_granted);
    // No loss, no resend.
    assert!(!h.log.iter().any(|s| matches!(s, Seen::Control { header: HomaHeader::Resend { .. }, .. })));
    // The 175 packets took about their transmission time at the bottleneck (1500 B at 10 Gbps:
    // 1.2 us each), plus at most a few round trips of grants.
    let last = done[0].as_secs_f64() * 1e6;
    assert!(last > 175.0 * 1.2 && last < 175.0 * 1.2 + 30.0, "{last} us");
}

#[test]
fn packets_ride_the_levels_the_rules_give_them() {
    // A 2-packet message (below the 3-packet cutoff: level 0) and a 30-packet one (level 1
    // unscheduled; scheduled at 7, the only message granted).
    let messages = [message(1, 2, 0), message(2, 30, 0)];
    let mut h = Harness::new(config(4), &messages);
    assert!(h.run(Duration::from_ms(10)));
    let levels = |i: usize, scheduled: bool| -> Vec<u8> {
        let mut v: Vec<u8> = h
            .log
            .iter()
            .filter_map(|s| match *s {
                Seen::AtSwitch { message, header: HomaHeader::Data { priority, .. }, seq, .. } if message == i && (seq >= RTT) == scheduled => Some(priority),
                _ => None,
            })
            .collect();
        v.dedup();
        v
    };
    assert_eq!(levels(0, false), [0]);
    assert_eq!(levels(1, false), [1]);
    assert_eq!(levels(1, true), [7]);
}

#[test]
fn lost_packets_come_again_after_a_resend_and_lost_first_packets_after_a_probe() {
    // Packets 3 (unscheduled) and 10 (scheduled) of a 30-packet message are lost.
    let mut h = Harness::new(config(4), &[message(1, 30, 0)]).dropping(&[3, 10]);
    assert!(h.run(Duration::from_ms(100)));
    let resends = h.log.iter().filter(|s| matches!(s, Seen::Control { header: HomaHeader::Resend { .. }, .. })).count();
    assert!(resends >= 1);
    assert_eq!(h.sender(0).stats().retransmitted_bytes, 2 * P);
    // A one-packet message whose only packet is lost: its receiver never hears of it, its sender
    // sends it again after 10 ms.
    let mut h = Harness::new(config(4), &[message(1, 1, 0)]).dropping(&[0]);
    assert!(h.run(Duration::from_ms(100)));
    assert_eq!(h.sender(0).stats().probes, 1);
    let done = h.completed(0).unwrap().as_secs_f64();
    assert!((0.010..0.0101).contains(&done), "{done}");
}

#[test]
fn busy_sender_answers_resend_with_busy_and_no_copy() {
    // A short RESEND timeout (20 us), and one host sending a 30-packet message and, right after,
    // a 200-packet one whose first scheduled packet is lost. While the host sends... the
    // shorter message goes first at the host (SRPT), so the long one's packets wait in its
    // queue when its RESEND comes: BUSY.
    let quick = HomaConfig { resend_timeout: Duration::from_us(20), ..config(4) };
    let messages = [message(1, 200, 0), message(1, 300, 1), message(2, 400, 0)];
    let mut h = Harness::new(quick, &messages).dropping(&[20]);
    assert!(h.run(Duration::from_ms(100)));
    let busy: u64 = (0..3).map(|i| h.sender(i).stats().busy).sum();
    assert!(busy >= 1, "some RESEND found its message queued at the sender");
    for (i, m) in messages.iter().enumerate() {
        assert_eq!(h.receiver().delivered(i as u64), m.size);
    }
}

#[test]
fn small_buffer_losses_are_all_recovered() {
    // Eight senders of 40 packets each into a switch port that holds 8 packets: the unscheduled
    // bursts overflow it; RESENDs recover every byte.
    let messages: Vec<Message> = (1..=8).map(|h| message(h, 40, 0)).collect();
    let mut h = Harness::new(config(3), &messages).buffer(8);
    assert!(h.run(Duration::from_secs(1)));
    assert!(h.log.iter().any(|s| matches!(s, Seen::AtSwitch { dropped: true, .. })));
    let resent: u64 = (0..8).map(|i| h.sender(i).stats().retransmitted_bytes).sum();
    assert!(resent > 0);
}
