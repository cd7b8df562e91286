//! The registry of transports ([`for_each_transport!`]), one line per transport with its
//! sections and the protocols it offers, and the [`Protocol`] enum defined from it: each
//! protocol's names, label, transport and sections. A leaf of the scenario modules: the spec
//! types name protocols through it, and every layer that needs the list (this crate's
//! `protocols`, `file`; incast-sim's transport registry) expands the macro itself.

/// The registry of transports: expands `$callback!` with one entry per transport, in the order
/// tables and messages list them:
///
/// ```text
/// module: Family [section ...] { Variant("name" "alias" ...) "Label", ... }
/// ```
///
/// `module` names the transport's modules (this crate's `protocols::module`, with its
/// [`TransportRules`]; incast-sim's `transport::module`, its engine adapter); `Family` its
/// variant in the engine's dispatch enums; each `section` a table of the file the transport
/// reads (this crate's `protocols::section`, a [`Section`]); each `Variant` a [`Protocol`] with
/// the names a scenario file accepts for it (the first is canonical) and the label figures and
/// messages use.
#[macro_export]
macro_rules! for_each_transport {
    ($callback:ident) => {
        $callback! {
            tcp: Tcp [d2tcp tcppr] { Tcp("tcp" "newreno") "TCP", Dctcp("dctcp") "DCTCP", D2tcp("d2tcp") "D2TCP", TcpPr("tcppr") "TCPpr" }
            d3: D3 [d3] { D3("d3") "D3", Rcpdc("rcpdc") "RCPdc" }
            pfabric: Pfabric [pfabric] { Pfabric("pfabric") "pFabric" }
            pdq: Pdq [pdq] { Pdq("pdq") "PDQ" }
            ndp: Ndp [ndp] { Ndp("ndp") "NDP" }
            homa: Homa [homa] { Homa("homa") "Homa" }
        }
    };
}

/// Defines [`Protocol`] from the registry.
macro_rules! define_protocols {
    ($($module:ident: $family:ident [$($section:ident)*] { $($variant:ident($($name:literal)+) $label:literal),+ })+) => {
        /// A transport protocol, as a scenario names it (`[transport] protocol`, a workload's
        /// `protocol`). The registry ([`for_each_transport!`]) lists them; each one's rules and
        /// sections are documented in docs/scenario.md.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Protocol {
            $($(
                #[doc = concat!("`", first_name!($($name)+), "`: ", $label, ", on the `", stringify!($module), "` transport.")]
                $variant,
            )+)+
        }

        impl Protocol {
            /// Every protocol, in the registry's order.
            pub const ALL: &'static [Protocol] = &[$($(Protocol::$variant,)+)+];

            /// Every name a scenario file accepts, with the protocol it names; a protocol's
            /// canonical name comes first among its own.
            pub(crate) const NAMES: &'static [(&'static str, Protocol)] = &[$($($(($name, Protocol::$variant),)+)+)+];

            /// The protocol's name in scenario files and result tables (`"dctcp"`).
            pub fn name(self) -> &'static str {
                match self {
                    $($(Protocol::$variant => first_name!($($name)+),)+)+
                }
            }

            /// Every name a scenario file accepts for the protocol, the canonical one first.
            pub fn names(self) -> &'static [&'static str] {
                match self {
                    $($(Protocol::$variant => &[$($name),+],)+)+
                }
            }

            /// How figures, tables and messages write the protocol (`"pFabric"`, `"D2TCP"`).
            pub fn label(self) -> &'static str {
                match self {
                    $($(Protocol::$variant => $label,)+)+
                }
            }

            /// The transport that runs it: the engine adapter's module (`"tcp"` for DCTCP).
            pub fn transport(self) -> &'static str {
                match self {
                    $($(Protocol::$variant => stringify!($module),)+)+
                }
            }

            /// The sections of the file its transport reads (`["d2tcp", "tcppr"]` for TCP's).
            pub fn transport_sections(self) -> &'static [&'static str] {
                match self {
                    $($(Protocol::$variant)|+ => &[$(stringify!($section)),*],)+
                }
            }

            /// The other protocols of its transport, itself included, in the registry's order.
            pub fn siblings(self) -> &'static [Protocol] {
                match self {
                    $($(Protocol::$variant)|+ => &[$(Protocol::$variant),+],)+
                }
            }
        }
    };
}

/// The first of a protocol's names: its canonical one.
macro_rules! first_name {
    ($first:literal $($rest:literal)*) => {
        $first
    };
}

for_each_transport!(define_protocols);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_has_one_canonical_name_first_among_its_names() {
        for &p in Protocol::ALL {
            let names: Vec<&str> = Protocol::NAMES.iter().filter(|(_, q)| *q == p).map(|(n, _)| *n).collect();
            assert!(!names.is_empty(), "{p:?}");
            assert_eq!(p.name(), names[0]);
            assert_eq!(p.names(), names);
        }
        let mut all: Vec<&str> = Protocol::NAMES.iter().map(|(n, _)| *n).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), Protocol::NAMES.len(), "no name names two protocols");
    }

    #[test]
    fn labels_transports_and_sections_come_from_the_registry() {
        assert_eq!((Protocol::Pfabric.label(), Protocol::Pfabric.transport()), ("pFabric", "pfabric"));
        assert_eq!((Protocol::D2tcp.label(), Protocol::D2tcp.transport()), ("D2TCP", "tcp"));
        assert_eq!(Protocol::Rcpdc.siblings(), [Protocol::D3, Protocol::Rcpdc]);
        assert_eq!(Protocol::Dctcp.transport_sections(), ["d2tcp", "tcppr"]);
    }
}
