//! What each transport of the registry (`registry::for_each_transport!`) says about itself in a
//! scenario: its sections' keys, defaults, checks and what `incast check` shows of them
//! ([`Section`]), and the rules its flows follow ([`TransportRules`]); and, expanded from the
//! registry, every section of the file ([`ProtocolSections`]) and every protocol's rules.
//!
//! A *transport* is one implementation in the engine (its endpoints, what its packets carry, what
//! its ports do); a *protocol* is a name a scenario file gives to a flow (`protocol = "dctcp"`).
//! Several protocols may share a transport: TCP's serves `tcp`, `dctcp`, `d2tcp` and `tcppr`,
//! which differ in congestion policy and priority class; D3's serves `d3` and `rcpdc`. A
//! *section* is a protocol's own table in the file (`[d3]`).
//!
//! Every layer that needs the list expands the registry with a macro of its own, so adding a
//! transport edits the list once (docs/adding-a-transport.md):
//!
//! ```text
//!  for_each_transport!(callback)             (registry.rs)
//!     ├─ incast-scenario: Protocol, its names and labels (registry.rs); its rules and
//!     │                   ProtocolSections (here); the file's sections (file::RawScenario)
//!     └─ incast-sim:      the engine's dispatch over transports (incast-sim/src/transport/registry.rs)
//! ```
//!
//! Modules, one per transport and one per section: `tcp` (its rules), `d2tcp` and `tcppr` (TCP's
//! sections), `d3`, `pdq`, `pfabric`, `ndp` and `homa` (each a transport with one section of its
//! name).

pub(crate) mod d2tcp;
pub(crate) mod d3;
pub(crate) mod homa;
pub(crate) mod ndp;
pub(crate) mod pdq;
pub(crate) mod pfabric;
pub(crate) mod tcp;
pub(crate) mod tcppr;

use serde_json::{Map, Value};

use crate::check::Result;
use crate::error::Warning;
use crate::registry::Protocol;
use crate::spec::{SwitchSpec, TopologySpec, TransportSpec, WorkloadSpec};
use crate::RunSpec;

/// What checking a section may read: `[transport]` and `[run]`, checked before it.
pub(crate) struct SectionContext<'a> {
    pub(crate) transport: &'a TransportSpec,
    pub(crate) run: &'a RunSpec,
}

/// What a section's whole-scenario check may read, once the workloads are checked.
pub(crate) struct Checked<'a> {
    pub(crate) topology: &'a TopologySpec,
    pub(crate) transport: &'a TransportSpec,
    pub(crate) switch: &'a SwitchSpec,
    pub(crate) workloads: &'a [WorkloadSpec],
}

impl Checked<'_> {
    /// The first workload some of whose flows run `protocol`.
    pub(crate) fn first_running(&self, protocol: Protocol) -> Option<usize> {
        self.workloads.iter().position(|w| w.flow_protocols(self.transport.protocol).contains(&protocol))
    }

    /// The key that gives the first flow running `protocol` its protocol, as the file writes it:
    /// a workload's `protocol`, an OLDI application's entry of `protocols` or its
    /// `background_protocol`, else `[transport] protocol`; `None` if no flow runs it.
    pub(crate) fn named_at(&self, protocol: Protocol) -> Option<String> {
        named_at(self.workloads, self.transport.protocol, protocol)
    }

    /// Whether some flow runs `protocol`, or one of its siblings on the same transport.
    pub(crate) fn runs_transport_of(&self, protocol: Protocol) -> bool {
        protocol.siblings().iter().any(|&p| self.first_running(p).is_some())
    }
}

/// [`Checked::named_at`] over `workloads`, whose flows that name no protocol run `default`.
pub(crate) fn named_at(workloads: &[WorkloadSpec], default: Protocol, protocol: Protocol) -> Option<String> {
    for (i, w) in workloads.iter().enumerate() {
        if !w.flow_protocols(default).contains(&protocol) {
            continue;
        }
        if let Some(oldi) = w.oldi() {
            if let Some(a) = oldi.apps.iter().position(|app| app.protocol == Some(protocol)) {
                return Some(format!("workload[{i}].protocols[{a}]"));
            }
            if oldi.background.as_ref().and_then(|b| b.protocol) == Some(protocol) {
                return Some(format!("workload[{i}].background_protocol"));
            }
        }
        return Some(if w.options().protocol == Some(protocol) { format!("workload[{i}].protocol") } else { "transport.protocol".into() });
    }
    None
}

/// A protocol's own table of the scenario file (`[d3]`): its keys as the file writes them, the
/// checked spec the engine reads, and what `incast check` shows of it. One module per section,
/// named after it; the module's `Raw` and `Spec` are its two forms.
pub(crate) trait Section {
    /// The table as the file writes it: serde refuses unknown keys and malformed units.
    type Raw: Default;
    /// The table checked, in engine units, every key the file leaves out at its default.
    type Spec: Default;

    /// Whether flows of `protocol` read the section. A file that sets the section when no flow
    /// reads it is warned (docs/scenario.md, "Warnings").
    fn used_by(protocol: Protocol) -> bool;

    /// The file's table, checked; errors name the key (`d3.alpha`).
    fn validate(raw: Self::Raw, context: &SectionContext<'_>) -> Result<Self::Spec>;

    /// What needs the rest of the scenario (TCPpr's classes against the switches').
    fn check(spec: &Self::Spec, scenario: &Checked<'_>) -> Result<()> {
        let _ = (spec, scenario);
        Ok(())
    }

    /// Every key with the value in effect, in file syntax.
    fn describe(spec: &Self::Spec) -> Map<String, Value>;

    /// What `incast check` says above the keys.
    fn heading(spec: &Self::Spec) -> String;
}

/// What a transport's flows may and may not do in a scenario. The defaults are a TCP-family
/// transport's: it shares the network, rides packet spraying, keeps connections, reads
/// `[transport]` whole and adds no header of its own.
pub(crate) trait TransportRules {
    /// Why its flows cannot share a network with other protocols' flows (its ports are its own),
    /// if they cannot: the end of the message.
    const ALONE: Option<&'static str> = None;
    /// Why it cannot run over packet spraying (`load_balancing = "spray"` or `"spray-permute"`), if it
    /// cannot.
    const NO_SPRAY: Option<&'static str> = None;
    /// Bytes its own header adds to a full data packet.
    const HEADER_BYTES: u32 = 0;
    /// Whether a connection carries one message after another (`connections = "persistent"`).
    const KEEPS_CONNECTIONS: bool = true;
    /// `[transport]` keys its hosts do without, with why: set `true` when every flow runs a
    /// protocol that does without it (wherever the protocol is named), an error.
    const REFUSES: (&'static [&'static str], &'static str) = (&[], "");
    /// Whether its hosts read `[transport]` (pFabric's run their own TCP).
    const READS_TRANSPORT: bool = true;
    /// Why its hosts read no `[transport]` key, when they do not: what `incast check` says in
    /// place of `[transport]`, and what the warning about keys set there says.
    const INSTEAD_OF_TRANSPORT: &'static str = "";
    /// Its protocols whose senders react to ECN marks (DCTCP and D2TCP on TCP's transport): run
    /// on ports that never mark, they are warned about (docs/scenario.md, "Warnings").
    const ECN_REACTIVE: &'static [Protocol] = &[];
}

/// Defines the protocols' rules and [`ProtocolSections`] from the registry.
macro_rules! define_sections {
    ($($module:ident: $family:ident [$($section:ident)*] { $($variant:ident($($name:literal)+) $label:literal),+ })+) => {
        impl Protocol {
            /// Bytes the protocol's own header adds to a full data packet (D3's congestion
            /// header, PDQ's scheduling header).
            pub fn extension_header_bytes(self) -> u32 {
                self.rules().header_bytes
            }

            /// Whether a connection of the protocol can carry one message after another
            /// (persistent connections): those on the TCP sender can (TCP's family, and pFabric,
            /// whose packets then carry the connection's remaining bytes: docs/pfabric.md); D3,
            /// RCPdc and PDQ open a connection per flow, since their senders ask the network for
            /// each flow's rate, and so does NDP, whose receivers pull each flow's packets.
            pub fn keeps_connections(self) -> bool {
                self.rules().keeps_connections
            }

            /// Whether its senders react to ECN marks (DCTCP and D2TCP): its packets are
            /// ECN-capable, and a port that marks none leaves it a loss-based TCP.
            pub fn reacts_to_ecn(self) -> bool {
                self.rules().ecn_reactive.contains(&self)
            }

            /// The rules of its transport.
            pub(crate) fn rules(self) -> Rules {
                match self {
                    $($(Protocol::$variant)|+ => Rules::of::<$module::Rules>(),)+
                }
            }
        }

        /// Every protocol's own sections, checked: what the engine's transports read
        /// (`[d2tcp]`, `[tcppr]`, `[d3]`, `[pdq]`, `[pfabric]`, one field each).
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct ProtocolSections {
            $($(
                #[doc = concat!("`[", stringify!($section), "]`, of the `", stringify!($module), "` transport.")]
                pub $section: $section::Spec,
            )*)+
        }

        /// The sections of a file as it writes them, `None` where it has none.
        #[derive(Default)]
        pub(crate) struct RawSections {
            $($(pub(crate) $section: Option<$section::Raw>,)*)+
        }

        impl ProtocolSections {
            /// The file's sections, checked.
            pub(crate) fn validate(raw: RawSections, context: &SectionContext<'_>) -> Result<(ProtocolSections, Vec<&'static str>)> {
                let mut given = Vec::new();
                $($(
                    if raw.$section.is_some() {
                        given.push(stringify!($section));
                    }
                )*)+
                let sections = ProtocolSections {
                    $($(
                        $section: <$section::Section as Section>::validate(raw.$section.unwrap_or_default(), context)?,
                    )*)+
                };
                Ok((sections, given))
            }

            /// The checks that need the whole scenario: each section's own.
            pub(crate) fn check(&self, scenario: &Checked<'_>) -> Result<()> {
                $($(
                    <$section::Section as Section>::check(&self.$section, scenario)?;
                )*)+
                Ok(())
            }

            /// A warning for each section of `given` (those the file sets) that no flow reads,
            /// `in_use` being the protocols the flows run: its keys change nothing. A warning, not
            /// an error, so that a sweep may vary the protocol over a file that carries one
            /// protocol's section (docs/scenario.md, "Warnings").
            pub(crate) fn unused(given: &[&str], in_use: &[Protocol]) -> Vec<Warning> {
                let mut out = Vec::new();
                $($(
                    let used = in_use.iter().any(|&p| <$section::Section as Section>::used_by(p));
                    if given.contains(&stringify!($section)) && !used {
                        let readers: Vec<Protocol> = Protocol::ALL.iter().copied().filter(|&p| <$section::Section as Section>::used_by(p)).collect();
                        let labels: Vec<&str> = readers.iter().map(|p| p.label()).collect();
                        out.push(Warning::new(
                            stringify!($section),
                            format!(
                                "is set, but no flow runs {}, so none of its keys is used (set [transport] protocol = \"{}\" or a workload's protocol to run it)",
                                prose(&labels, "or"),
                                readers[0].name()
                            ),
                        ));
                    }
                )*)+
                out
            }

            /// The sections the protocols `in_use` read, each as (name, heading, keys in effect),
            /// in the registry's order.
            pub(crate) fn describe(&self, in_use: &[Protocol]) -> Vec<(&'static str, String, Map<String, Value>)> {
                let mut out = Vec::new();
                $($(
                    if in_use.iter().any(|&p| <$section::Section as Section>::used_by(p)) {
                        out.push((
                            stringify!($section),
                            <$section::Section as Section>::heading(&self.$section),
                            <$section::Section as Section>::describe(&self.$section),
                        ));
                    }
                )*)+
                out
            }
        }
    };
}

crate::for_each_transport!(define_sections);

/// A transport's [`TransportRules`] as values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    pub(crate) alone: Option<&'static str>,
    pub(crate) no_spray: Option<&'static str>,
    pub(crate) header_bytes: u32,
    pub(crate) keeps_connections: bool,
    pub(crate) refuses: (&'static [&'static str], &'static str),
    pub(crate) reads_transport: bool,
    pub(crate) instead_of_transport: &'static str,
    pub(crate) ecn_reactive: &'static [Protocol],
}

impl Rules {
    fn of<R: TransportRules>() -> Rules {
        Rules {
            alone: R::ALONE,
            no_spray: R::NO_SPRAY,
            header_bytes: R::HEADER_BYTES,
            keeps_connections: R::KEEPS_CONNECTIONS,
            refuses: R::REFUSES,
            reads_transport: R::READS_TRANSPORT,
            instead_of_transport: R::INSTEAD_OF_TRANSPORT,
            ecn_reactive: R::ECN_REACTIVE,
        }
    }
}

/// `labels` joined as prose: "A", "A or B", "A, B or C" with `last` = "or".
pub(crate) fn prose(labels: &[&str], last: &str) -> String {
    match labels {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., tail] => format!("{} {last} {tail}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_joins_labels() {
        assert_eq!(prose(&["D3"], "or"), "D3");
        assert_eq!(prose(&["D3", "RCPdc"], "or"), "D3 or RCPdc");
        assert_eq!(prose(&["D3", "RCPdc", "PDQ"], "and"), "D3, RCPdc and PDQ");
    }
}
