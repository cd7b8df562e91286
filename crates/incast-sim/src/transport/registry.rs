//! The engine's side of the registry: incast-scenario's `for_each_transport!` list expanded into
//! the enums the engine dispatches on, one variant per transport, and the run-wide lists of the
//! columns and counters transports add to the results. Adding a transport to the list adds its
//! variant everywhere here; nothing else in the engine changes.
//!
//! Dispatch is a `match` on the variant, as the engine's own enums were before transports were
//! plug-ins: the call inlines into the event loop, and a transport without a processor or a
//! discipline (`Never`) has a variant that is never built.

use std::sync::OnceLock;

use incast_proto::time::{Duration, Instant};

use super::{
    Arriving, CapturedHeader, FlowStart, IdealPackets, Joined, NetFacts, Outgoing, OutgoingAck, Passage, Plugin, PortFacts,
    PortProcessor as _, PortView, QueueDiscipline as _, ReceiverEnd as _, SenderEnd as _, TraceRow, Way, WireHeader as _,
};
use crate::ids::{FlowId, PacketId};
use crate::outcome::Outcome;
use crate::packet::{Packet, PacketKind};
use crate::results::ExtraColumn;
use crate::scenario::{Protocol, Scenario};
use crate::workload::FlowPlan;

/// Expands the registry into the dispatch enums. Each arm of each `match` calls the transport's
/// own type; `header_of!` picks a transport's own header out of the engine's.
macro_rules! engine_registry {
    ($($module:ident: $family:ident [$($section:ident)*] { $($variant:ident($($name:literal)+) $label:literal),+ })+) => {
        /// A packet's transport header: the variant of the flow's transport.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub(crate) enum Header {
            $(
                #[doc = concat!("A packet of the `", stringify!($module), "` transport.")]
                $family(<super::$module::Plugin as Plugin>::Header),
            )+
        }

        impl Header {
            /// Bytes the header adds on the wire.
            #[inline]
            pub(crate) fn wire_bytes(&self) -> u32 {
                match self {
                    $(Header::$family(h) => h.wire_bytes(),)+
                }
            }

            /// The class its sender chose for the packet, if it chose one.
            #[inline]
            pub(crate) fn priority(&self) -> Option<u8> {
                match self {
                    $(Header::$family(h) => h.priority(),)+
                }
            }

            /// Which port processors see a packet of `kind` with this header.
            #[inline]
            pub(crate) fn way(&self, kind: PacketKind) -> Option<Way> {
                match self {
                    $(Header::$family(h) => h.way(kind),)+
                }
            }
        }

        /// A running flow's sending end, of whichever transport it runs.
        pub(crate) enum Sender {
            $(
                #[doc = concat!("The sending end of a `", stringify!($module), "` flow.")]
                $family(<super::$module::Plugin as Plugin>::Sender),
            )+
        }

        impl Sender {
            /// The sender's next packet.
            #[inline]
            pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Outgoing<Header>> {
                match self {
                    $(Sender::$family(e) => e.poll_transmit(now).map(|o| Outgoing { seg: o.seg, header: o.header.map(Header::$family) }),)+
                }
            }

            /// An ACK reached the sender.
            #[inline]
            pub(crate) fn handle_ack(&mut self, now: Instant, packet: &Packet, header: Option<&Header>) {
                match self {
                    $(Sender::$family(e) => e.handle_ack(now, packet, header_of!(header, $family)),)+
                }
            }

            /// A data packet a port returned reached the sender.
            #[cold]
            #[inline(never)]
            pub(crate) fn handle_returned(&mut self, now: Instant, packet: &Packet, header: Option<&Header>) {
                match self {
                    $(Sender::$family(e) => e.handle_returned(now, packet, header_of!(header, $family)),)+
                }
            }

            /// The sender acts on its due timers.
            pub(crate) fn handle_timeout(&mut self, now: Instant) {
                match self {
                    $(Sender::$family(e) => e.handle_timeout(now),)+
                }
            }

            /// The sender's earliest timer.
            #[inline]
            pub(crate) fn poll_timeout(&self) -> Option<Instant> {
                match self {
                    $(Sender::$family(e) => e.poll_timeout(),)+
                }
            }

            /// Whether the sender has nothing left to do.
            #[inline]
            pub(crate) fn is_complete(&self) -> bool {
                match self {
                    $(Sender::$family(e) => e.is_complete(),)+
                }
            }

            /// What the sender counted so far.
            pub(crate) fn outcome(&self) -> Outcome {
                match self {
                    $(Sender::$family(e) => e.outcome(),)+
                }
            }

            /// The sender's state for the traces table.
            pub(crate) fn trace(&self) -> TraceRow {
                let mut row = TraceRow::default();
                match self {
                    $(Sender::$family(e) => e.trace(&mut row),)+
                }
                row
            }

            /// Appends the next message of a persistent connection.
            pub(crate) fn push_message(&mut self, now: Instant, bytes: u64, deadline: Option<Instant>) {
                match self {
                    $(Sender::$family(e) => e.push_message(now, bytes, deadline),)+
                }
            }
        }

        /// A running flow's receiving end, of whichever transport it runs.
        pub(crate) enum Receiver {
            $(
                #[doc = concat!("The receiving end of a `", stringify!($module), "` flow.")]
                $family(<super::$module::Plugin as Plugin>::Receiver),
            )+
        }

        impl Receiver {
            /// The receiver's next answer.
            #[inline]
            pub(crate) fn poll_ack(&mut self, now: Instant) -> Option<OutgoingAck<Header>> {
                match self {
                    $(Receiver::$family(e) => e.poll_ack(now).map(|o| OutgoingAck { ack: o.ack, ect: o.ect, header: o.header.map(Header::$family) }),)+
                }
            }

            /// A data packet reached the receiver.
            #[inline]
            pub(crate) fn handle_data(&mut self, now: Instant, packet: &Packet, header: Option<&Header>) {
                match self {
                    $(Receiver::$family(e) => e.handle_data(now, packet, header_of!(header, $family)),)+
                }
            }

            /// An answer a port returned came back to the receiver.
            #[cold]
            #[inline(never)]
            pub(crate) fn handle_returned(&mut self, now: Instant, packet: &Packet, header: Option<&Header>) {
                match self {
                    $(Receiver::$family(e) => e.handle_returned(now, packet, header_of!(header, $family)),)+
                }
            }

            /// The receiver acts on its due timers.
            pub(crate) fn handle_timeout(&mut self, now: Instant) {
                match self {
                    $(Receiver::$family(e) => e.handle_timeout(now),)+
                }
            }

            /// The receiver's earliest timer.
            #[inline]
            pub(crate) fn poll_timeout(&self) -> Option<Instant> {
                match self {
                    $(Receiver::$family(e) => e.poll_timeout(),)+
                }
            }

            /// Payload bytes the receiver holds in order.
            #[inline]
            pub(crate) fn delivered_bytes(&self) -> u64 {
                match self {
                    $(Receiver::$family(e) => e.delivered_bytes(),)+
                }
            }

            /// Loss timers of the receiver's that fired.
            pub(crate) fn timeouts(&self) -> u64 {
                match self {
                    $(Receiver::$family(e) => e.timeouts(),)+
                }
            }
        }

        /// What a port runs for one transport's packets.
        pub(crate) enum Processor {
            $(
                #[doc = concat!("A processor of the `", stringify!($module), "` transport.")]
                $family(<super::$module::Plugin as Plugin>::Processor),
            )+
        }

        impl Processor {
            /// A packet with `header` leaves through the port; whether a drop must be undone.
            #[inline]
            pub(crate) fn on_out(&mut self, passage: &Passage<'_>, header: &mut Header) -> bool {
                #[allow(unreachable_patterns)] // a registry of one transport
                match (self, header) {
                    $((Processor::$family(p), Header::$family(h)) => p.on_out(passage, h),)+
                    _ => false,
                }
            }

            /// A packet with `header` passes the port's node on its flow's way back.
            #[inline]
            pub(crate) fn on_back(&mut self, passage: &Passage<'_>, header: &mut Header) {
                #[allow(unreachable_patterns)]
                match (self, header) {
                    $((Processor::$family(p), Header::$family(h)) => p.on_back(passage, h),)+
                    _ => {}
                }
            }

            /// The port dropped a packet whose header `on_out` answered.
            pub(crate) fn on_dropped(&mut self, now: Instant, header: &Header) {
                #[allow(unreachable_patterns)]
                match (self, header) {
                    $((Processor::$family(p), Header::$family(h)) => p.on_dropped(now, h),)+
                    _ => {}
                }
            }

            /// When the processor next wants `handle_timeout`.
            pub(crate) fn poll_timeout(&self) -> Option<Instant> {
                match self {
                    $(Processor::$family(p) => p.poll_timeout(),)+
                }
            }

            /// Called at or after `poll_timeout()`.
            pub(crate) fn handle_timeout(&mut self, now: Instant, port: &PortView) {
                match self {
                    $(Processor::$family(p) => p.handle_timeout(now, port),)+
                }
            }

            /// Adds its counters to `sums`, indexed as `port_counters()`.
            pub(crate) fn count(&self, sums: &mut [u64]) {
                let names = port_counters();
                let span = |list: &[&str]| {
                    let start = names.iter().position(|n| Some(n) == list.first()).unwrap_or(0);
                    start..start + list.len()
                };
                match self {
                    $(Processor::$family(p) => p.count(&mut sums[span(<super::$module::Plugin as Plugin>::PORT_COUNTERS)]),)+
                }
            }

            /// Its values of `port_sample_columns()` now, if it samples any.
            pub(crate) fn sample(&self, row: &mut [Option<u64>]) -> bool {
                let (columns, samples) = (port_sample_columns(), row.len());
                debug_assert_eq!(columns.len(), samples);
                let mut own = [None; 16];
                let sampled = match self {
                    $(Processor::$family(p) => {
                        let declared = <super::$module::Plugin as Plugin>::PORT_SAMPLES;
                        if p.sample(&mut own[..declared.len()]) {
                            for (column, value) in declared.iter().zip(own) {
                                let i = columns.iter().position(|c| c.name == column.name).expect("registered");
                                row[i] = value;
                            }
                            true
                        } else {
                            false
                        }
                    })+
                };
                sampled
            }
        }

        /// How a port queues, for a transport with its own discipline.
        pub(crate) enum Discipline {
            $(
                #[doc = concat!("A discipline of the `", stringify!($module), "` transport.")]
                $family(<super::$module::Plugin as Plugin>::Discipline),
            )+
        }

        impl std::fmt::Debug for Discipline {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(Discipline::$family(_) => write!(f, "the {} discipline", stringify!($module)),)+
                }
            }
        }

        impl Discipline {
            /// A packet arrives at `now` and finds `waiting` bytes queued.
            pub(crate) fn offer(&mut self, now: Instant, packet: &Arriving, header: Option<&Header>, waiting: u64) -> Joined {
                match self {
                    $(Discipline::$family(d) => d.offer(now, packet, header_of!(header, $family), waiting),)+
                }
            }

            /// The next packet to serialize at `now`.
            pub(crate) fn next(&mut self, now: Instant) -> Option<PacketId> {
                match self {
                    $(Discipline::$family(d) => d.next(now),)+
                }
            }

            /// Whether a packet that finds nothing waiting and the serializer free goes
            /// straight onto the wire (`QueueDiscipline::take_when_idle`).
            pub(crate) fn take_when_idle(&mut self, now: Instant, wire_bytes: u32, payload: bool) -> bool {
                match self {
                    $(Discipline::$family(d) => d.take_when_idle(now, wire_bytes, payload),)+
                }
            }

            /// When a packet held back may go.
            pub(crate) fn held_until(&self) -> Option<Instant> {
                match self {
                    $(Discipline::$family(d) => d.held_until(),)+
                }
            }

            /// Packets waiting.
            pub(crate) fn len(&self) -> usize {
                match self {
                    $(Discipline::$family(d) => d.len(),)+
                }
            }
        }

        /// Every transport's settings for one run.
        pub(crate) struct Setups {
            $($module: <super::$module::Plugin as Plugin>::Setup,)+
        }

        impl Setups {
            /// Every transport set up for a run of `scenario` over `net`.
            pub(crate) fn new(scenario: &Scenario, net: &NetFacts) -> Setups {
                Setups { $($module: <super::$module::Plugin as Plugin>::setup(scenario, net),)+ }
            }

            /// The two ends of a flow starting as `start` says.
            pub(crate) fn endpoints(&self, start: &FlowStart<'_>) -> (Sender, Receiver) {
                match start.protocol {
                    $($(Protocol::$variant)|+ => {
                        let (sender, receiver) = <super::$module::Plugin as Plugin>::endpoints(&self.$module, start);
                        (Sender::$family(sender), Receiver::$family(receiver))
                    })+
                }
            }

            /// The strict-priority class of flow `plan` of `protocol`.
            pub(crate) fn priority(&self, protocol: Protocol, plan: &FlowPlan) -> u8 {
                match protocol {
                    $($(Protocol::$variant)|+ => <super::$module::Plugin as Plugin>::priority(&self.$module, protocol, plan),)+
                }
            }

            /// What a flow of `protocol`'s ideal completion time counts.
            pub(crate) fn ideal(&self, protocol: Protocol, opens: bool) -> IdealPackets {
                match protocol {
                    $($(Protocol::$variant)|+ => <super::$module::Plugin as Plugin>::ideal(&self.$module, protocol, opens),)+
                }
            }

            /// A flow a call on another flow's receiver gave something to send, of any transport.
            #[inline]
            pub(crate) fn poll_wake(&self) -> Option<FlowId> {
                $(
                    if let Some(flow) = <super::$module::Plugin as Plugin>::poll_wake(&self.$module) {
                        return Some(flow);
                    }
                )+
                None
            }

            /// What a capture shows of `header`.
            pub(crate) fn capture(&self, header: &Header) -> CapturedHeader {
                match header {
                    $(Header::$family(h) => <super::$module::Plugin as Plugin>::capture(&self.$module, h),)+
                }
            }

            /// How `port` queues in a run whose flows run `protocols`: the discipline of the first
            /// of their transports (in the registry's order) that has one for it.
            pub(crate) fn discipline(&self, protocols: &[Protocol], port: &PortFacts) -> Option<Discipline> {
                $(
                    if protocols.iter().any(|p| matches!(p, $(Protocol::$variant)|+)) {
                        if let Some(d) = <super::$module::Plugin as Plugin>::discipline(&self.$module, port) {
                            return Some(Discipline::$family(d));
                        }
                    }
                )+
                None
            }

            /// What `port` runs in a run whose flows run `protocols`: the processor of the first of
            /// their transports (in the registry's order) that has one for it.
            pub(crate) fn processor(&self, protocols: &[Protocol], port: &PortFacts) -> Option<Processor> {
                $(
                    if protocols.iter().any(|p| matches!(p, $(Protocol::$variant)|+)) {
                        if let Some(p) = <super::$module::Plugin as Plugin>::processor(&self.$module, port) {
                            return Some(Processor::$family(p));
                        }
                    }
                )+
                None
            }
        }

        impl Setups {
            /// The longest first timeout (`Plugin::first_timeout`) among the transports of
            /// `protocols`: what `stall_after = "auto"` scales with; zero for none.
            pub(crate) fn first_timeout(&self, protocols: &[Protocol]) -> Duration {
                let mut longest = Duration::ZERO;
                $(
                    if protocols.iter().any(|p| matches!(p, $(Protocol::$variant)|+)) {
                        longest = longest.max(<super::$module::Plugin as Plugin>::first_timeout(&self.$module));
                    }
                )+
                longest
            }
        }

        /// The scenario keys most likely behind a stall of `protocol`'s flows, most likely first
        /// (its transport's `Plugin::STALL_KEYS`).
        pub(crate) fn stall_keys(protocol: Protocol) -> &'static [&'static str] {
            match protocol {
                $($(Protocol::$variant)|+ => <super::$module::Plugin as Plugin>::STALL_KEYS,)+
            }
        }

        /// Why a run of `scenario` cut into parts cannot have `protocol`'s flows yet, and the key
        /// to name (its transport's `Plugin::unsplit`).
        pub(crate) fn unsplit(protocol: Protocol, scenario: &Scenario) -> Option<(&'static str, &'static str)> {
            match protocol {
                $($(Protocol::$variant)|+ => <super::$module::Plugin as Plugin>::unsplit(scenario),)+
            }
        }

        /// Every transport's trace columns, in the registry's order (each name once): the
        /// traces table's columns after its common ones.
        pub fn trace_columns() -> &'static [ExtraColumn] {
            static COLUMNS: OnceLock<Vec<ExtraColumn>> = OnceLock::new();
            COLUMNS.get_or_init(|| union(&[$(<super::$module::Plugin as Plugin>::TRACE_COLUMNS),+]))
        }

        /// Every transport's port counters, in the registry's order: the summary's.
        pub(crate) fn port_counters() -> &'static [&'static str] {
            static COUNTERS: OnceLock<Vec<&'static str>> = OnceLock::new();
            COUNTERS.get_or_init(|| [$(<super::$module::Plugin as Plugin>::PORT_COUNTERS),+].concat())
        }

        /// Every transport's columns of queue samples, in the registry's order (each name once).
        pub fn port_sample_columns() -> &'static [ExtraColumn] {
            static COLUMNS: OnceLock<Vec<ExtraColumn>> = OnceLock::new();
            COLUMNS.get_or_init(|| union(&[$(<super::$module::Plugin as Plugin>::PORT_SAMPLES),+]))
        }
    };
}

/// A transport's own header out of the engine's `Option<&Header>`.
macro_rules! header_of {
    ($header:expr, $family:ident) => {
        match $header {
            Some(Header::$family(h)) => Some(h),
            #[allow(unreachable_patterns)] // a registry of one transport
            _ => None,
        }
    };
}

/// The columns of `lists` in order, a name declared twice kept once (where it was first).
fn union(lists: &[&[ExtraColumn]]) -> Vec<ExtraColumn> {
    let mut out: Vec<ExtraColumn> = Vec::new();
    for column in lists.iter().flat_map(|l| l.iter()) {
        match out.iter().find(|c| c.name == column.name) {
            Some(c) => debug_assert!(c.kind == column.kind, "trace column {} declared with two types", c.name),
            None => out.push(*column),
        }
    }
    out
}

incast_scenario::for_each_transport!(engine_registry);

/// What a flow whose ends are `sender` and `receiver` achieved so far: the sender's counts, the
/// receiver's bytes, and the loss timers of both. The one place where the two ends of a flow
/// meet: each is otherwise called only with what reaches its own host and at its own timer, as
/// it will be when each lives in a part of the network of its own (issue 41).
pub(crate) fn outcome(sender: &Sender, receiver: &Receiver) -> Outcome {
    let sent = sender.outcome();
    let timeouts = u64::from(sent.timeouts) + receiver.timeouts();
    Outcome { delivered_bytes: receiver.delivered_bytes(), timeouts: timeouts.min(u64::from(u32::MAX)) as u32, ..sent }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transports_stall_keys_are_keys_of_the_scenario_file() {
        for &protocol in Protocol::ALL {
            let keys = stall_keys(protocol);
            assert!(!keys.is_empty(), "{protocol:?} names no key");
            for key in keys {
                let (section, name) = key.split_once('.').expect("section.key");
                // A value of no key's type: the error names the key, and not as unknown.
                let text = format!(
                    "[topology]\nkind = \"star\"\nhosts = 4\n[{section}]\n{name} = []\n[[workload]]\nkind = \"flow-burst\"\n"
                );
                let e = crate::scenario::parse_toml(&text, None).expect_err(key);
                assert_eq!(e.path, *key, "{e}");
                assert!(!e.message.contains("unknown"), "{key}: {e}");
            }
        }
    }

    #[test]
    fn the_first_timeout_is_the_running_transports_own_timer() {
        use incast_proto::time::BitsPerSec;
        let first = |protocol: &str, section: &str| {
            let text = format!(
                "[topology]\nkind = \"star\"\nhosts = 4\n[transport]\nprotocol = \"{protocol}\"\n\
                 initial_rto = \"3s\"\nmin_rto = \"2s\"\n{section}\n[[workload]]\nkind = \"flow-burst\"\n"
            );
            let scenario = crate::scenario::parse_toml(&text, None).expect("parses");
            let link = crate::scenario::LinkSpec { rate: BitsPerSec::GBPS, delay: Duration::from_us(1) };
            let setups = Setups::new(&scenario, &NetFacts { fastest_host_link: link.rate, longest_path: vec![link, link] });
            setups.first_timeout(&scenario.protocols_in_use())
        };
        assert_eq!(first("dctcp", ""), Duration::from_secs(3), "TCP's initial RTO, above its minimum");
        assert_eq!(first("d3", ""), Duration::from_secs(3));
        assert_eq!(first("pfabric", "[pfabric]\nrto = \"45us\""), Duration::from_us(45), "pFabric's own, not [transport]'s");
        assert_eq!(first("ndp", "[ndp]\nrto = \"1ms\""), Duration::from_ms(1));
        assert_eq!(first("homa", "[switch]\npriority_classes = 8\n[homa]\nresend_timeout = \"7ms\""), Duration::from_ms(7));
    }
}
