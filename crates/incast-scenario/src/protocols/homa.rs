//! Homa's transport in a scenario (Montazeri et al., SIGCOMM 2018; docs/homa.md): the `[homa]`
//! section of its hosts ([`HomaSpec`]), on the paper's rules or the ns-3 port's
//! (`model = "ns3"`), and Homa's rules: its priorities are the switches' classes and its hosts'
//! NICs order their own messages (it runs alone), a message per flow, none of `[transport]`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, value::SeqAccessDeserializer, Deserializer, IntoDeserializer, Visitor};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use incast_proto::homa::{ResendTimer, ScheduledLevels, MAX_LEVELS};
use incast_proto::time::Duration;

use super::{Checked, Protocol, SectionContext, TransportRules};
use crate::check::{count, err, positive_time, Result};
use crate::error::join;
use crate::limits;
use crate::names::{Name, Named};
use crate::units::{rate_text, time_text as time};
use crate::units::{Size, Time};

/// Homa's rules.
pub(crate) struct Rules;

impl TransportRules for Rules {
    const ALONE: Option<&'static str> = Some(
        "Homa's receivers hand out the switches' priority classes to its own packets, and its hosts' NICs send their \
         messages shortest first",
    );
    const KEEPS_CONNECTIONS: bool = false;
    const READS_TRANSPORT: bool = false;
    const INSTEAD_OF_TRANSPORT: &'static str =
        "[transport] protocol = \"homa\": Homa's hosts use none of [transport]'s other keys ([homa] sets them)";
}

/// The `[homa]` section.
pub(crate) struct Section;

/// `[homa]` checked.
pub(crate) type Spec = HomaSpec;

impl super::Section for Section {
    type Raw = Raw;
    type Spec = HomaSpec;

    fn used_by(protocol: Protocol) -> bool {
        protocol == Protocol::Homa
    }

    fn validate(raw: Raw, context: &SectionContext<'_>) -> Result<HomaSpec> {
        validate_homa(raw, context)
    }

    fn check(spec: &HomaSpec, scenario: &Checked<'_>) -> Result<()> {
        check_priority_classes(spec, scenario)?;
        if scenario.first_running(Protocol::Homa).is_none() {
            return Ok(());
        }
        check_resend_timeout(spec, scenario.topology.host_link_rate())
    }

    fn describe(h: &HomaSpec) -> Map<String, Value> {
        let auto = |v: Option<Value>| v.unwrap_or_else(|| json!("auto"));
        let mut m = Map::new();
        m.insert("model".into(), json!(h.model.name()));
        m.insert("unscheduled_bytes".into(), auto(h.unscheduled_bytes.map(|b| json!(format!("{b}B")))));
        m.insert("priorities".into(), json!(h.priorities));
        m.insert("unscheduled_priorities".into(), auto(h.unscheduled_priorities.map(|u| json!(u))));
        m.insert(
            "unscheduled_cutoffs".into(),
            auto(h.unscheduled_cutoffs.as_ref().map(|c| json!(c.iter().map(|b| format!("{b}B")).collect::<Vec<_>>()))),
        );
        m.insert("overcommitment".into(), auto(h.overcommitment.map(|o| json!(o))));
        m.insert("scheduled_levels".into(), json!(h.scheduled_levels.name()));
        m.insert("resend_timeout".into(), json!(time(h.resend_timeout)));
        m.insert("resend_timer".into(), json!(h.resend_timer.name()));
        m.insert("ack".into(), json!(h.ack));
        m.insert("strip_priorities".into(), json!(h.strip_priorities));
        m
    }

    fn heading(h: &HomaSpec) -> String {
        let rules = match h.model {
            HomaModel::Paper => "the paper's rules",
            HomaModel::Ns3 => "the ns-3 port's rules (HomaL4Protocol-ns-3 3cac711)",
        };
        format!(
            "[homa] in effect ({rules} with the file's keys; \"auto\": RTTbytes from the network, levels and cutoffs \
             from the Homa workloads' sizes, overcommitment the scheduled levels):"
        )
    }
}

/// Whose rules a `[homa]` section starts from; every other key overrides one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomaModel {
    /// The paper's (Montazeri et al., SIGCOMM 2018), with its authors' simulator where the paper
    /// leaves a value open.
    Paper,
    /// The ns-3 port's simplifications (serhatarslan-hub/HomaL4Protocol-ns-3 at 3cac711, its
    /// `HomaL4Protocol-paper-reproduction.cc` settings): 7 unscheduled packets of 1460 B, two
    /// unscheduled levels divided at 13 packets, overcommitment 6, scheduled levels from the
    /// top, a RESEND timer every 1 ms, an ACK per message.
    Ns3,
}

impl Named for HomaModel {
    const WHAT: &'static str = "Homa model";
    const NAMES: &'static [(&'static str, Self)] = &[("paper", HomaModel::Paper), ("ns3", HomaModel::Ns3)];
}

impl Named for ScheduledLevels {
    const WHAT: &'static str = "placement of scheduled levels";
    const NAMES: &'static [(&'static str, Self)] = &[("lowest", ScheduledLevels::Lowest), ("highest", ScheduledLevels::Highest)];
}

impl Named for ResendTimer {
    const WHAT: &'static str = "RESEND timer";
    const NAMES: &'static [(&'static str, Self)] = &[("silence", ResendTimer::Silence), ("periodic", ResendTimer::Periodic)];
}

/// The packets of a model: message bytes in a full DATA packet, a DATA packet's headers, a
/// control packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HomaPackets {
    /// Message bytes of a full DATA packet.
    pub max_payload: u32,
    /// Header bytes of a DATA packet.
    pub data_header_bytes: u32,
    /// A control packet on the wire.
    pub control_bytes: u32,
}

impl HomaModel {
    /// Its packets: the authors' simulator's (1442 B under 58 B of IPv4, UDP and Homa headers;
    /// 46 B control packets), or the ns-3 port's (1460 B under its 20 B header and IPv4's; 40 B
    /// control packets, `HomaHeader::GetSerializedSize`).
    pub fn packets(self) -> HomaPackets {
        match self {
            HomaModel::Paper => HomaPackets {
                max_payload: incast_proto::homa::MAX_PAYLOAD,
                data_header_bytes: incast_proto::homa::DATA_HEADER_BYTES,
                control_bytes: incast_proto::homa::CONTROL_BYTES,
            },
            HomaModel::Ns3 => HomaPackets { max_payload: 1460, data_header_bytes: 40, control_bytes: 40 },
        }
    }
}

/// Homa's settings (`[homa]`). `None` is "auto", computed for the run: RTTbytes from the
/// network, the levels' division and cutoffs from the sizes of the workloads that run Homa, the
/// overcommitment from the scheduled levels (docs/homa.md).
#[derive(Clone, Debug, PartialEq)]
pub struct HomaSpec {
    /// Whose rules the defaults are.
    pub model: HomaModel,
    /// Bytes of each message sent before any grant (RTTbytes); `None`: the bytes a host's link
    /// sends while a full packet crosses the network's longest path and a grant comes back.
    pub unscheduled_bytes: Option<u64>,
    /// Priority levels in all (the switches' classes they ride in, 0 first).
    pub priorities: u8,
    /// How many of the levels (the highest) carry unscheduled packets; `None`: their share of
    /// the bytes.
    pub unscheduled_priorities: Option<u8>,
    /// Message sizes dividing the unscheduled levels; `None`: equal unscheduled bytes each.
    pub unscheduled_cutoffs: Option<Vec<u64>>,
    /// The most messages a receiver grants at once; `None`: the scheduled levels.
    pub overcommitment: Option<u32>,
    /// Where granted messages go among the scheduled levels.
    pub scheduled_levels: ScheduledLevels,
    /// How long a message waits for its packets before its receiver asks again.
    pub resend_timeout: Duration,
    /// When the receiver asks again.
    pub resend_timer: ResendTimer,
    /// Whether a receiver acknowledges a complete message.
    pub ack: bool,
    /// Every packet rides class 0, whatever level Homa gave it: the ns-3 port at 3cac711, whose
    /// priority tag the IP layer strips (its issue 7, mended by its PR 8).
    pub strip_priorities: bool,
}

impl HomaSpec {
    /// The settings of `model` before any key of the file.
    pub fn of_model(model: HomaModel) -> HomaSpec {
        match model {
            HomaModel::Paper => HomaSpec {
                model,
                unscheduled_bytes: None,
                priorities: MAX_LEVELS as u8,
                unscheduled_priorities: None,
                unscheduled_cutoffs: None,
                overcommitment: None,
                scheduled_levels: ScheduledLevels::Lowest,
                resend_timeout: Duration::from_ms(5),
                resend_timer: ResendTimer::Silence,
                ack: false,
                strip_priorities: false,
            },
            HomaModel::Ns3 => {
                let packet = u64::from(model.packets().max_payload);
                HomaSpec {
                    model,
                    // `bdpPkts` = 7 (`initialCredit`) of the paper reproduction script.
                    unscheduled_bytes: Some(7 * packet),
                    priorities: 8,
                    unscheduled_priorities: Some(2),
                    // `HomaOutboundMsg::GetPrio`: messages under 13 packets on level 0.
                    unscheduled_cutoffs: Some(vec![12 * packet]),
                    overcommitment: Some(6),
                    scheduled_levels: ScheduledLevels::Highest,
                    resend_timeout: Duration::from_ms(1),
                    resend_timer: ResendTimer::Periodic,
                    ack: true,
                    strip_priorities: false,
                }
            }
        }
    }

    /// Its packets' sizes.
    pub fn packets(&self) -> HomaPackets {
        self.model.packets()
    }
}

impl Default for HomaSpec {
    /// The paper's.
    fn default() -> HomaSpec {
        HomaSpec::of_model(HomaModel::Paper)
    }
}

/// A key that takes a value or `"auto"`.
pub(crate) enum Auto<T> {
    Auto,
    Value(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Auto<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Auto<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"auto\" or a value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Auto<T>, E> {
                if v.trim().eq_ignore_ascii_case("auto") {
                    Ok(Auto::Auto)
                } else {
                    T::deserialize(v.into_deserializer()).map(Auto::Value)
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Auto<T>, E> {
                T::deserialize(v.into_deserializer()).map(Auto::Value)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Auto<T>, E> {
                T::deserialize(v.into_deserializer()).map(Auto::Value)
            }
            fn visit_seq<S: de::SeqAccess<'de>>(self, seq: S) -> std::result::Result<Auto<T>, S::Error> {
                T::deserialize(SeqAccessDeserializer::new(seq)).map(Auto::Value)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// `[homa]` as the file writes it.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) model: Option<Name<HomaModel>>,
    pub(crate) unscheduled_bytes: Option<Auto<Size>>,
    pub(crate) priorities: Option<u64>,
    pub(crate) unscheduled_priorities: Option<Auto<u64>>,
    pub(crate) unscheduled_cutoffs: Option<Auto<Vec<Size>>>,
    pub(crate) overcommitment: Option<Auto<u64>>,
    pub(crate) scheduled_levels: Option<Name<ScheduledLevels>>,
    pub(crate) resend_timeout: Option<Time>,
    pub(crate) resend_timer: Option<Name<ResendTimer>>,
    pub(crate) ack: Option<bool>,
    pub(crate) strip_priorities: Option<bool>,
}

/// The most messages a receiver may grant at once: far beyond any host's share of a network.
const HOMA_MAX_OVERCOMMITMENT: u64 = 100_000;

/// `[homa]`: the model's settings, each key the file gives checked in their place: at least one
/// unscheduled byte; 1 to 8 levels; unscheduled levels leaving one for scheduled packets (unless
/// there is one level); cutoffs rising, positive and one fewer than the unscheduled levels at
/// most (with "auto" levels, they make one more level than they are); an overcommitment of at
/// least 1; a positive RESEND timeout within the horizon.
fn validate_homa(raw: Raw, context: &SectionContext<'_>) -> Result<HomaSpec> {
    let at = |key: &str| join("homa", key);
    let model = raw.model.map_or(HomaModel::Paper, |m| m.0);
    let d = HomaSpec::of_model(model);
    let unscheduled_bytes = match raw.unscheduled_bytes {
        None => d.unscheduled_bytes,
        Some(Auto::Auto) => None,
        Some(Auto::Value(Size(0))) => return Err(err(at("unscheduled_bytes"), "must be positive (found 0 B)")),
        Some(Auto::Value(Size(b))) => Some(b),
    };
    let priorities = match raw.priorities {
        None => d.priorities,
        Some(n) => count(|| at("priorities"), n, 1, MAX_LEVELS as u64)? as u8,
    };
    let most_unscheduled = u64::from(priorities.saturating_sub(1).max(1));
    let mut unscheduled_priorities = match raw.unscheduled_priorities {
        None => d.unscheduled_priorities.map(|u| u.min(most_unscheduled as u8)),
        Some(Auto::Auto) => None,
        Some(Auto::Value(n)) => {
            if n == 0 || n > most_unscheduled {
                let why = if priorities == 1 { "one level serves both kinds" } else { "at least one level is left for scheduled packets" };
                return Err(err(
                    at("unscheduled_priorities"),
                    format!("must be between 1 and {most_unscheduled} with {priorities} priorities ({why}; found {n})"),
                ));
            }
            Some(n as u8)
        }
    };
    let unscheduled_cutoffs = match raw.unscheduled_cutoffs {
        None => d.unscheduled_cutoffs,
        Some(Auto::Auto) => None,
        Some(Auto::Value(sizes)) => {
            let cutoffs: Vec<u64> = sizes.into_iter().map(|s| s.0).collect();
            for (i, w) in cutoffs.windows(2).enumerate() {
                if w[1] <= w[0] {
                    return Err(err(
                        format!("homa.unscheduled_cutoffs[{}]", i + 1),
                        format!("cutoffs must rise ({} B after {} B)", w[1], w[0]),
                    ));
                }
            }
            if cutoffs.first() == Some(&0) {
                return Err(err("homa.unscheduled_cutoffs[0]", "must be positive (found 0 B)"));
            }
            Some(cutoffs)
        }
    };
    if let Some(cutoffs) = &unscheduled_cutoffs {
        let levels = unscheduled_priorities.map_or(cutoffs.len() + 1, usize::from);
        if cutoffs.len() >= levels || levels as u64 > most_unscheduled {
            return Err(err(
                at("unscheduled_cutoffs"),
                format!(
                    "{} cutoffs divide {} unscheduled levels, but there are {} (homa.unscheduled_priorities; at most {} of \
                     {priorities} priorities)",
                    cutoffs.len(),
                    cutoffs.len() + 1,
                    unscheduled_priorities.map_or_else(|| "auto".to_owned(), |u| u.to_string()),
                    most_unscheduled
                ),
            ));
        }
        unscheduled_priorities = Some(levels as u8);
    }
    let overcommitment = match raw.overcommitment {
        None => d.overcommitment,
        Some(Auto::Auto) => None,
        Some(Auto::Value(n)) => Some(count(|| at("overcommitment"), n, 1, HOMA_MAX_OVERCOMMITMENT)?),
    };
    limits::within_horizon(|| at("resend_timeout"), raw.resend_timeout, context.run)?;
    let resend_timeout = positive_time(|| at("resend_timeout"), raw.resend_timeout, d.resend_timeout)?;
    Ok(HomaSpec {
        model,
        unscheduled_bytes,
        priorities,
        unscheduled_priorities,
        unscheduled_cutoffs,
        overcommitment,
        scheduled_levels: raw.scheduled_levels.map_or(d.scheduled_levels, |s| s.0),
        resend_timeout,
        resend_timer: raw.resend_timer.map_or(d.resend_timer, |t| t.0),
        ack: raw.ack.unwrap_or(d.ack),
        strip_priorities: raw.strip_priorities.unwrap_or(d.strip_priorities),
    })
}

/// Homa's levels are the switches' strict-priority classes, so when some workload runs Homa the
/// ports need as many classes as `[homa]` has levels.
/// A receiver's timer fires every `resend_timeout` (periodically with `resend_timer =
/// "periodic"`): one shorter than a full packet's serialization on the fastest host link would
/// fire faster than anything in the network can happen (the progress watchdog's timer test), and
/// before a message's first packet could have arrived.
fn check_resend_timeout(homa: &HomaSpec, fastest: incast_proto::time::BitsPerSec) -> Result<()> {
    let packet = u64::from(incast_proto::tcp::MTU_BYTES);
    let bound = fastest.tx_time(packet);
    if homa.resend_timeout < bound {
        return Err(err(
            "homa.resend_timeout",
            format!(
                "{} is shorter than one full packet's serialization on the fastest host link ({packet} B at {}: {}): \
                 a receiver would ask again before a packet could arrive; give at least {} (the paper's is 5 ms, \
                 docs/homa.md)",
                time(homa.resend_timeout),
                rate_text(fastest),
                time(bound),
                time(bound)
            ),
        ));
    }
    Ok(())
}

fn check_priority_classes(homa: &HomaSpec, scenario: &Checked<'_>) -> Result<()> {
    let classes = scenario.switch.priority_classes;
    if homa.priorities <= classes {
        return Ok(());
    }
    let Some(i) = scenario.first_running(Protocol::Homa) else {
        return Ok(());
    };
    Err(err(
        "homa.priorities",
        format!(
            "Homa, which workload[{i}] runs, uses {} priority levels, but switch.priority_classes = {classes}: raise \
             switch.priority_classes to {} (Homa's switches have 8), or lower homa.priorities",
            homa.priorities, homa.priorities
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{burst, malformed, star, toml};

    /// A star of 8-class switches whose flows run Homa; `[homa]` keys follow it.
    macro_rules! homa {
        () => {
            concat!(star!(), "[switch]\npriority_classes = 8\n", burst!(), "[transport]\nprotocol = \"homa\"\n[homa]\n")
        };
    }

    #[test]
    fn defaults_are_the_papers_and_ns3_is_the_ports() {
        let paper = toml(concat!(star!(), "[switch]\npriority_classes = 8\n", burst!(), "[transport]\nprotocol = \"homa\"\n")).sections.homa;
        assert_eq!(paper, HomaSpec::default());
        assert_eq!((paper.priorities, paper.unscheduled_bytes, paper.overcommitment, paper.ack), (8, None, None, false));
        let ns3 = toml(concat!(homa!(), "model = \"ns3\"\n")).sections.homa;
        // The port's 7 packets of 1460 B, its 13-packet cutoff (below: level 0), overcommitment 6.
        assert_eq!(ns3.unscheduled_bytes, Some(10_220));
        assert_eq!((ns3.unscheduled_priorities, ns3.unscheduled_cutoffs.as_deref()), (Some(2), Some(&[17_520][..])));
        assert_eq!((ns3.overcommitment, ns3.scheduled_levels, ns3.resend_timer), (Some(6), ScheduledLevels::Highest, ResendTimer::Periodic));
        assert_eq!((ns3.resend_timeout, ns3.ack, ns3.strip_priorities), (Duration::from_ms(1), true, false));
    }

    #[test]
    fn keys_override_the_model_and_auto_restores_the_computed_values() {
        let h = toml(concat!(
            homa!(),
            "model = \"ns3\"\nunscheduled_bytes = \"auto\"\nunscheduled_priorities = \"auto\"\nunscheduled_cutoffs = \"auto\"\n\
             overcommitment = 3\nscheduled_levels = \"lowest\"\nresend_timer = \"silence\"\nresend_timeout = \"2ms\"\nack = false\n\
             strip_priorities = true\npriorities = 4\n"
        ))
        .sections
        .homa;
        assert_eq!((h.unscheduled_bytes, h.unscheduled_priorities, h.unscheduled_cutoffs), (None, None, None));
        assert_eq!((h.overcommitment, h.priorities, h.scheduled_levels), (Some(3), 4, ScheduledLevels::Lowest));
        assert_eq!((h.resend_timer, h.resend_timeout, h.ack, h.strip_priorities), (ResendTimer::Silence, Duration::from_ms(2), false, true));
        // Cutoffs given with "auto" levels make one more level than they are.
        let h = toml(concat!(homa!(), "unscheduled_cutoffs = [\"1KB\", \"10KB\"]\nunscheduled_bytes = \"9328B\"\n")).sections.homa;
        assert_eq!((h.unscheduled_priorities, h.unscheduled_cutoffs, h.unscheduled_bytes), (Some(3), Some(vec![1_000, 10_000]), Some(9_328)));
    }

    malformed! {
        homa_levels_beyond_the_ports_classes: concat!(star!(), burst!(), "[transport]\nprotocol = \"homa\"\n"), "homa.priorities", "uses 8 priority levels, but switch.priority_classes = 1: raise switch.priority_classes to 8";
        homa_fewer_classes_than_levels: concat!(star!(), "[switch]\npriority_classes = 4\n", burst!(), "[transport]\nprotocol = \"homa\"\n[homa]\npriorities = 5\n"), "homa.priorities", "uses 5 priority levels, but switch.priority_classes = 4";
        homa_zero_overcommitment: concat!(homa!(), "overcommitment = 0\n"), "homa.overcommitment", "must be between 1 and 100000 (found 0)";
        homa_nine_priorities: concat!(homa!(), "priorities = 9\n"), "homa.priorities", "must be between 1 and 8 (found 9)";
        homa_no_scheduled_level_left: concat!(homa!(), "unscheduled_priorities = 8\n"), "homa.unscheduled_priorities", "must be between 1 and 7 with 8 priorities";
        homa_zero_unscheduled_levels: concat!(homa!(), "unscheduled_priorities = 0\n"), "homa.unscheduled_priorities", "must be between 1 and 7";
        homa_falling_cutoffs: concat!(homa!(), "unscheduled_cutoffs = [\"10KB\", \"1KB\"]\n"), "homa.unscheduled_cutoffs[1]", "cutoffs must rise";
        homa_too_many_cutoffs: concat!(homa!(), "unscheduled_priorities = 2\nunscheduled_cutoffs = [\"1KB\", \"10KB\"]\n"), "homa.unscheduled_cutoffs", "2 cutoffs divide 3 unscheduled levels, but there are 2";
        homa_zero_unscheduled_bytes: concat!(homa!(), "unscheduled_bytes = \"0B\"\n"), "homa.unscheduled_bytes", "must be positive";
        homa_zero_resend_timeout: concat!(homa!(), "resend_timeout = \"0s\"\n"), "homa.resend_timeout", "must be positive";
        homa_unknown_model: concat!(homa!(), "model = \"omnet\"\n"), "homa.model", "expected one of \"paper\", \"ns3\"";
        homa_unknown_key: concat!(homa!(), "rtt_bytes = \"10KB\"\n"), "homa.rtt_bytes", "unknown key";
        homa_with_a_tcp_workload: concat!(star!(), "[switch]\npriority_classes = 8\n", burst!(), "protocol = \"homa\"\n", burst!(), "protocol = \"dctcp\"\n"), "workload[1].protocol", "Homa cannot share a network with other protocols";
        homa_persistent_connections: "[topology]\nkind = \"two-tier\"\nracks = 4\nhosts_per_rack = 10\n[run]\nduration = \"100ms\"\n[switch]\npriority_classes = 8\n[[workload]]\nkind = \"oldi\"\nfan_in = 5\nutilization = 0.1\nconnections = \"persistent\"\nprotocol = \"homa\"\n", "workload[0].connections", "but messages would use homa: D3, RCPdc, PDQ, NDP and Homa open a connection per flow";
    }
}
