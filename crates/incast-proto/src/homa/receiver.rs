//! A Homa host's receiving side (Montazeri et al., SIGCOMM 2018, Sections 3.3 to 3.5 and 3.7):
//! every message arriving at the host, and the one scheduler that grants them.
//!
//! - **Grants** (Section 3.3): a message's first RTTbytes come unscheduled; for the rest, the
//!   receiver keeps RTTbytes granted beyond what it has received, with a GRANT each time a DATA
//!   packet of a granted message arrives.
//! - **SRPT with overcommitment** (Sections 3.4, 3.5): it grants the messages with the fewest bytes
//!   still to receive, at most `overcommitment` of them at once and one per sender (a sender
//!   sends one message at a time anyway: HomaSimulation's `SchedSenders`, the ns-3 port's
//!   `grantedSenders`), each at the level its rank gives it (`Priorities::scheduled`).
//! - **Loss** (Section 3.7): a message silent for the RESEND timeout with bytes granted and not
//!   received gets a RESEND for each missing range; a BUSY from its sender counts as word from
//!   it. (`ResendTimer::Periodic` is the ns-3 port's timer instead.)
//!
//! Messages are named by the driver ([`MessageId`]); a call about one message may give another
//! something to send (a GRANT, when the first one completes and frees its place among the
//! granted): [`HomaReceiver::poll_wake`] names those, so the driver can poll them too.

use std::collections::{BTreeMap, VecDeque};

use super::config::{HomaConfig, ResendTimer};
use super::header::HomaHeader;
use crate::tcp::ranges::merge;
use crate::tcp::DataSegment;
use crate::time::Instant;

/// A message, as the driver names it (the engine: its flow's number).
pub type MessageId = u64;

/// What a receiver did for one message, for the flow table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HomaReceiverStats {
    /// RESENDs sent.
    pub resends: u64,
    /// GRANTs sent.
    pub grants: u64,
    /// Payload bytes that arrived a second time.
    pub duplicate_bytes: u64,
}

/// One message arriving.
#[derive(Clone, Debug)]
struct Inbound {
    /// Its sender's host (one granted message per sender).
    sender: u32,
    size: u64,
    /// Bytes it sends before any grant.
    unscheduled: u64,
    /// Byte ranges held.
    held: Vec<(u64, u64)>,
    received: u64,
    /// Bytes the sender may send.
    granted: u64,
    complete: bool,
    /// Control packets to send.
    outbox: VecDeque<HomaHeader>,
    /// The last DATA or BUSY of the message.
    last_heard: Instant,
    timer: Option<Instant>,
    /// `ResendTimer::Periodic`: the grant at the previous tick, below which missing bytes are
    /// asked for again at this one.
    resend_below: u64,
    /// Granted in the latest scheduling pass.
    active: bool,
    /// The level a RESEND asks for: its latest GRANT's, or before any the level its first DATA
    /// packet came at (the paper's RESEND names a level; the ns-3 port repeats the last granted).
    priority: u8,
    /// Its sender answered a RESEND with BUSY and has sent no DATA since.
    sender_busy: bool,
    stats: HomaReceiverStats,
}

impl Inbound {
    /// Bytes still to receive: the scheduler's order.
    fn remaining(&self) -> u64 {
        self.size - self.received
    }

    /// Whether some granted byte has not arrived.
    fn expecting(&self) -> bool {
        !self.complete && !self.gaps(self.granted.min(self.size)).is_empty()
    }

    /// The missing ranges below `limit`.
    fn gaps(&self, limit: u64) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut at = 0;
        for &(s, e) in &self.held {
            if s >= limit {
                break;
            }
            if s > at {
                gaps.push((at, s));
            }
            at = e;
        }
        if at < limit {
            gaps.push((at, limit));
        }
        gaps
    }
}

/// A host's receiving side: its messages and its grant scheduler.
#[derive(Clone, Debug)]
pub struct HomaReceiver {
    config: HomaConfig,
    messages: BTreeMap<MessageId, Inbound>,
    /// Messages given something to send by a call about another one.
    wakes: VecDeque<MessageId>,
}

impl HomaReceiver {
    /// A host's receiving side, with nothing arriving yet.
    pub fn new(config: HomaConfig) -> HomaReceiver {
        HomaReceiver { config, messages: BTreeMap::new(), wakes: VecDeque::new() }
    }

    /// A DATA packet `seg` of message `id` (of `message_bytes`, from host `sender`, at level
    /// `priority`) arrived.
    pub fn handle_data(&mut self, now: Instant, id: MessageId, sender: u32, message_bytes: u64, priority: u8, seg: &DataSegment) {
        let config = self.config;
        let m = self.messages.entry(id).or_insert_with(|| {
            let size = message_bytes.max(1);
            let unscheduled = config.unscheduled(size);
            Inbound {
                sender,
                size,
                unscheduled,
                held: Vec::new(),
                received: 0,
                granted: unscheduled,
                complete: false,
                outbox: VecDeque::new(),
                last_heard: now,
                timer: Some(now + config.resend_timeout),
                resend_below: unscheduled,
                active: false,
                priority,
                sender_busy: false,
                stats: HomaReceiverStats::default(),
            }
        });
        m.last_heard = now;
        m.sender_busy = false;
        if m.complete {
            m.stats.duplicate_bytes += u64::from(seg.len);
            if config.ack {
                // The ACK was lost, or this is a late copy: acknowledge again.
                m.outbox.push_back(HomaHeader::Ack);
            }
            return;
        }
        let end = (seg.seq + u64::from(seg.len)).min(m.size);
        if seg.seq < end {
            let ((s, e), held) = merge(&mut m.held, seg.seq, end);
            let new = (e - s) - held;
            m.stats.duplicate_bytes += (end - seg.seq) - new;
            m.received += new;
        }
        if m.received == m.size {
            m.complete = true;
            m.timer = None;
            if config.ack {
                m.outbox.push_back(HomaHeader::Ack);
            }
        } else if m.timer.is_none() && config.resend_timer == ResendTimer::Silence && m.expecting() {
            m.timer = Some(now + config.resend_timeout);
        }
        self.schedule(now, id);
    }

    /// A BUSY of message `id` arrived: its sender is alive and busy; the message is not silent.
    pub fn handle_busy(&mut self, now: Instant, id: MessageId) {
        if let Some(m) = self.messages.get_mut(&id) {
            m.last_heard = now;
            m.sender_busy = true;
        }
    }

    /// Message `id`'s timer: a RESEND for what is missing, if the message has been silent
    /// (`ResendTimer::Silence`) or at each tick (`ResendTimer::Periodic`).
    pub fn handle_timeout(&mut self, now: Instant, id: MessageId) {
        let config = self.config;
        let Some(m) = self.messages.get_mut(&id) else { return };
        let Some(due) = m.timer else { return };
        if now < due || m.complete {
            return;
        }
        let missing = match config.resend_timer {
            ResendTimer::Silence => {
                let quiet_since = m.last_heard + config.resend_timeout;
                if now < quiet_since {
                    m.timer = Some(quiet_since);
                    return;
                }
                m.gaps(m.granted.min(m.size))
            }
            ResendTimer::Periodic => {
                // The ns-3 port asks only for a message it grants, of a sender not busy.
                let below = std::mem::replace(&mut m.resend_below, m.granted);
                if m.active && !m.sender_busy { m.gaps(below.min(m.size)) } else { Vec::new() }
            }
        };
        for (start, end) in missing {
            // A RESEND names at most 4 GB (its length field); larger gaps are asked for in parts.
            let len = (end - start).min(u64::from(u32::MAX)) as u32;
            m.outbox.push_back(HomaHeader::Resend { start, len, priority: m.priority });
            m.stats.resends += 1;
        }
        m.timer = match config.resend_timer {
            ResendTimer::Silence if !m.expecting() => None,
            _ => Some(now + config.resend_timeout),
        };
    }

    /// The next control packet message `id` sends its sender.
    #[must_use]
    pub fn poll_control(&mut self, id: MessageId) -> Option<HomaHeader> {
        self.messages.get_mut(&id)?.outbox.pop_front()
    }

    /// A message that a call about another one gave something to send.
    #[must_use]
    pub fn poll_wake(&mut self) -> Option<MessageId> {
        self.wakes.pop_front()
    }

    /// When message `id`'s timer is due.
    pub fn poll_timeout(&self, id: MessageId) -> Option<Instant> {
        self.messages.get(&id).and_then(|m| m.timer)
    }

    /// Bytes of message `id` held from its start on.
    pub fn delivered(&self, id: MessageId) -> u64 {
        self.messages.get(&id).and_then(|m| m.held.first().filter(|r| r.0 == 0)).map_or(0, |r| r.1)
    }

    /// Whether every byte of message `id` arrived.
    pub fn is_complete(&self, id: MessageId) -> bool {
        self.messages.get(&id).is_some_and(|m| m.complete)
    }

    /// What the receiver did for message `id`.
    pub fn stats(&self, id: MessageId) -> HomaReceiverStats {
        self.messages.get(&id).map(|m| m.stats).unwrap_or_default()
    }

    /// Bytes message `id` may be sent so far, and whether it is among the granted.
    pub fn grant_of(&self, id: MessageId) -> Option<(u64, bool)> {
        self.messages.get(&id).map(|m| (m.granted, m.active))
    }

    /// Forgets message `id` (its flow is over).
    pub fn remove(&mut self, id: MessageId) {
        self.messages.remove(&id);
    }

    /// Messages known.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether no message is known.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Grants the messages with the fewest bytes left to receive, one per sender, at most
    /// `overcommitment` of them, each so that RTTbytes are granted beyond what arrived; `caller`
    /// is polled by the driver anyway, any other message granted is woken.
    fn schedule(&mut self, now: Instant, caller: MessageId) {
        let config = self.config;
        let mut order: Vec<(u64, MessageId, u32)> =
            self.messages.iter().filter(|(_, m)| !m.complete && m.granted < m.size).map(|(&id, m)| (m.remaining(), id, m.sender)).collect();
        order.sort_unstable();
        let mut chosen: Vec<MessageId> = Vec::new();
        let mut senders: Vec<u32> = Vec::new();
        for (_, id, sender) in order {
            if chosen.len() == config.overcommitment as usize {
                break;
            }
            if !senders.contains(&sender) {
                senders.push(sender);
                chosen.push(id);
            }
        }
        for m in self.messages.values_mut() {
            m.active = false;
        }
        let granted = chosen.len();
        for (rank, id) in chosen.into_iter().enumerate() {
            let m = self.messages.get_mut(&id).expect("chosen among the messages");
            m.active = true;
            let target = grant_target(&config, m);
            if target > m.granted {
                m.granted = target;
                let priority = config.priorities.scheduled(rank, granted);
                m.priority = priority;
                let idle = m.outbox.is_empty();
                m.outbox.push_back(HomaHeader::Grant { offset: target, priority });
                m.stats.grants += 1;
                if config.resend_timer == ResendTimer::Silence && m.timer.is_none() {
                    m.timer = Some(now + config.resend_timeout);
                }
                if id != caller && idle {
                    self.wakes.push_back(id);
                }
            }
        }
    }
}

/// What `m` should be granted: RTTbytes beyond what arrived, ending on a packet boundary of the
/// scheduled bytes (which follow the unscheduled ones in full packets), at most the message.
fn grant_target(config: &HomaConfig, m: &Inbound) -> u64 {
    let want = (m.received + config.rtt_bytes).min(m.size);
    if want <= m.unscheduled {
        return m.unscheduled;
    }
    let payload = u64::from(config.max_payload);
    let packets = (want - m.unscheduled).div_ceil(payload);
    (m.unscheduled + packets * payload).min(m.size)
}
