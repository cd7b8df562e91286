//! What the scenario tests of every module share: the smallest valid sections as text
//! (`star!`, `burst!`), a parse that must succeed ([`toml`]) and one that must fail at a given
//! key with a given message ([`assert_bad`], and `malformed!`, one test per rule), and port names
//! for `[output]`'s patterns ([`FixedPortNames`], [`PORTS`]), which only the engine can give for
//! real.

use crate::{parse_toml, PortNames, Scenario, TopologySpec};

/// A 4-host star, the smallest valid topology section.
macro_rules! star {
    () => {
        "[topology]\nkind = \"star\"\nhosts = 4\n"
    };
}
/// A flow-burst workload header; keys written after it belong to the workload.
macro_rules! burst {
    () => {
        "[[workload]]\nkind = \"flow-burst\"\n"
    };
}
pub(crate) use {burst, star};

/// Port names the tests check `[output]` patterns against. This crate cannot name the ports of
/// a topology (the engine does, and its tests check patterns against the real names): a fixed
/// list, whatever the topology.
pub(crate) struct FixedPortNames(pub(crate) &'static [&'static str]);

impl PortNames for FixedPortNames {
    fn port_names(&self, _: &TopologySpec) -> Result<Vec<String>, String> {
        Ok(self.0.iter().map(|&name| name.to_owned()).collect())
    }
}

/// Two ports of the 4-host star `star!()`, named as the engine names them.
pub(crate) const PORTS: FixedPortNames = FixedPortNames(&["h0->switch", "switch->h0"]);

/// `text` parsed, or a panic with the error and the text.
pub(crate) fn toml(text: &str) -> Scenario {
    parse_toml(text, None, &PORTS).unwrap_or_else(|e| panic!("rejected: {e}\n{text}"))
}

/// Asserts that `text` is rejected, at key path `path`, with a message containing `needle`.
#[track_caller]
pub(crate) fn assert_bad(text: &str, path: &str, needle: &str) {
    let e = match parse_toml(text, None, &PORTS) {
        Ok(_) => panic!("accepted a malformed scenario:\n{text}"),
        Err(e) => e,
    };
    assert_eq!(e.path, path, "wrong path in: {e}");
    assert!(
        e.message.contains(needle),
        "message {:?} lacks {needle:?}",
        e.message
    );
}

/// One test per rule: `malformed!(name: toml text, expected path, message substring;)`.
macro_rules! malformed {
    ($($name:ident: $text:expr, $path:expr, $needle:expr;)*) => {
        $(
            #[test]
            fn $name() {
                $crate::fixtures::assert_bad($text, $path, $needle);
            }
        )*
    };
}
pub(crate) use malformed;
