//! Validation of `[switch] ecn_threshold`: the one-value forms, and the table by link rate
//! (issue 41: the HPCC and Parsimon configurations mark at 30 KB on 10 Gbps ports and 120 KB on
//! 40 Gbps ones), whose every port's rate must have an entry.

use incast_proto::time::BitsPerSec;

use super::check::{err, Result};
use super::file::RawEcn;
use super::spec::{EcnSpec, TopologySpec};
use super::units::{parse_rate, rate_text};

const KEY: &str = "switch.ecn_threshold";

/// The threshold `raw` gives, a table's keys parsed as rates.
pub(crate) fn threshold(raw: RawEcn) -> Result<EcnSpec> {
    Ok(match raw {
        RawEcn::Auto => EcnSpec::Auto,
        RawEcn::Off => EcnSpec::Off,
        RawEcn::Scaled => EcnSpec::Scaled,
        RawEcn::Bytes(b) => EcnSpec::Bytes(b),
        RawEcn::Packets(n) => EcnSpec::Packets(n),
        RawEcn::PerRate(entries) => EcnSpec::PerRate(table(entries)?),
    })
}

fn table(entries: Vec<(String, RawEcn)>) -> Result<Vec<(BitsPerSec, EcnSpec)>> {
    if entries.is_empty() {
        return Err(err(
            KEY,
            "an empty table gives no port a threshold: give one per link rate, such as { \"10Gbps\" = \"30KB\" }",
        ));
    }
    let mut table: Vec<(BitsPerSec, EcnSpec)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let rate = parse_rate(&key).map_err(|m| err(KEY, format!("table key {m}; its keys are link rates such as \"10Gbps\"")))?;
        if rate == 0 {
            return Err(err(KEY, format!("table key {key:?} is a rate of 0: no link runs at it")));
        }
        let rate = BitsPerSec(rate);
        if table.iter().any(|(r, _)| *r == rate) {
            return Err(err(KEY, format!("table key {key:?} gives {} a second time", rate_text(rate))));
        }
        let value = match value {
            RawEcn::PerRate(_) => {
                return Err(err(
                    KEY,
                    format!("the entry for {key:?} is a table; an entry is packets, a size, \"off\", \"auto\" or \"scaled\""),
                ))
            }
            one => threshold(one)?,
        };
        table.push((rate, value));
    }
    Ok(table)
}

/// Errs naming the first tier of links of `topology` whose rate a table `ecn` has no entry
/// for: every link has a switch at one end at least, whose port towards it marks at that rate.
pub(crate) fn covers(ecn: &EcnSpec, topology: &TopologySpec) -> Result<()> {
    let EcnSpec::PerRate(table) = ecn else { return Ok(()) };
    let Some((tier, rate)) = topology.link_tiers().into_iter().find(|&(_, rate)| ecn.at_rate(rate).is_none()) else {
        return Ok(());
    };
    let ports = match topology {
        TopologySpec::Graph(g) => {
            let mut of_rate = g.links.iter().filter(|l| l.link.rate == rate);
            let first = of_rate.next().map_or_else(String::new, |l| {
                format!("{}-{} (line {})", g.nodes[l.a as usize].name, g.nodes[l.b as usize].name, l.line)
            });
            match of_rate.count() {
                0 => format!("the ports of link {first} of {}", g.file),
                more => format!("the ports of link {first} of {} and of {more} more", g.file),
            }
        }
        _ => format!("the switch ports of the {tier} links of the {} topology", topology.kind_name()),
    };
    let given: Vec<String> = table.iter().map(|(r, _)| format!("{:?}", rate_text(*r))).collect();
    Err(err(
        KEY,
        format!(
            "has no entry for {rate}, the rate of {ports}: every switch port needs a threshold; add \"{rate}\" = a \
             threshold (the table has {})",
            given.join(", "),
            rate = rate_text(rate),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{burst, malformed, toml};
    use crate::spec::EcnMark;

    /// Parsimon's Figure 7 fabric in small: 10 Gbps hosts, 40 Gbps leaf-spine links.
    macro_rules! leaf_spine {
        () => {
            "[topology]\nkind = \"leaf-spine\"\nracks = 2\nhosts_per_rack = 4\nspines = 1\n"
        };
    }

    fn k(text: &str, rate_gbps: u64) -> Option<EcnMark> {
        toml(text).switch.ecn.at_rate(BitsPerSec(rate_gbps * 1_000_000_000))
    }

    /// The HPCC and Parsimon configurations: 30 KB at 10 Gbps, 120 KB at 40 Gbps; entries may be
    /// any one-value form, and keys any way of writing a rate.
    #[test]
    fn a_table_gives_each_rate_its_threshold() {
        let text = concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10Gbps\" = \"30KB\", \"40000Mbps\" = \"120KB\" }\n", burst!());
        assert_eq!(k(text, 10), Some(EcnMark::Bytes(30_000)));
        assert_eq!(k(text, 40), Some(EcnMark::Bytes(120_000)));
        assert_eq!(k(text, 25), None, "no entry, no threshold");
        let mixed = concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10Gbps\" = 20, \"40Gbps\" = \"auto\" }\n", burst!());
        assert_eq!(k(mixed, 10), Some(EcnMark::Packets(20)));
        assert_eq!(k(mixed, 40), Some(EcnMark::Packets(65)), "\"auto\" in an entry is auto at that rate");
        let off = concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10Gbps\" = \"off\", \"40Gbps\" = \"scaled\" }\n", burst!());
        assert_eq!(k(off, 10), Some(EcnMark::Never));
        assert_eq!(k(off, 40), Some(EcnMark::Bytes(390_000)));
    }

    /// "scaled" is DCTCP's 65 packets of 1500 B at 10 Gbps, in proportion to the rate; "auto"
    /// keeps its two steps (20 packets up to 1 Gbps, 65 above), which reproductions rely on.
    #[test]
    fn scaled_is_proportional_to_the_rate_and_auto_is_unchanged() {
        let text = concat!(leaf_spine!(), "[switch]\necn_threshold = \"scaled\"\n", burst!());
        assert_eq!(k(text, 10), Some(EcnMark::Bytes(97_500)));
        assert_eq!(k(text, 40), Some(EcnMark::Bytes(390_000)));
        assert_eq!(k(text, 1), Some(EcnMark::Bytes(9_750)));
        assert_eq!(EcnSpec::scaled_bytes(BitsPerSec(100_000_000_000)), 975_000);
        assert_eq!(EcnSpec::scaled_bytes(BitsPerSec(u64::MAX)), 179_855_754_718_668, "no overflow");
        let auto = concat!(leaf_spine!(), burst!());
        assert_eq!((k(auto, 1), k(auto, 10), k(auto, 40)), (Some(EcnMark::Packets(20)), Some(EcnMark::Packets(65)), Some(EcnMark::Packets(65))));
    }

    #[test]
    fn a_graph_names_a_link_of_the_missing_rate() {
        let dir = std::env::temp_dir().join(format!("incast-ecn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let graph = "switch s0 s1\nhost h0 h1\nlink h0 s0 10Gbps 1us\nlink h1 s1 10Gbps 1us\nlink s0 s1 25Gbps 1us\n";
        std::fs::write(dir.join("g.graph"), graph).unwrap();
        let text = format!(
            "[topology]\nkind = \"graph\"\nfile = {:?}\n[switch]\necn_threshold = {{ \"10Gbps\" = \"30KB\" }}\n{}",
            dir.join("g.graph").to_str().unwrap(),
            burst!()
        );
        let e = crate::parse_toml(&text, None, &crate::fixtures::PORTS).unwrap_err();
        assert_eq!(e.path, "switch.ecn_threshold");
        assert!(e.message.starts_with("has no entry for 25Gbps, the rate of the ports of link s0-s1 (line 5) of "), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    malformed! {
        ecn_table_missing_a_tier: concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10Gbps\" = \"30KB\" }\n", burst!()),
            "switch.ecn_threshold",
            "has no entry for 40Gbps, the rate of the switch ports of the leaf-spine links of the leaf-spine topology: every switch port needs a threshold; add \"40Gbps\" = a threshold (the table has \"10Gbps\")";
        ecn_table_empty: concat!(leaf_spine!(), "[switch]\necn_threshold = {}\n", burst!()), "switch.ecn_threshold", "an empty table";
        ecn_table_key_not_a_rate: concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10GB\" = \"30KB\" }\n", burst!()),
            "switch.ecn_threshold", "table key invalid rate \"10GB\"";
        ecn_table_key_zero: concat!(leaf_spine!(), "[switch]\necn_threshold = { \"0Gbps\" = \"30KB\" }\n", burst!()), "switch.ecn_threshold", "a rate of 0";
        ecn_table_same_rate_twice: concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10Gbps\" = 1, \"10000Mbps\" = 2 }\n", burst!()),
            "switch.ecn_threshold", "\"10000Mbps\" gives 10Gbps a second time";
        ecn_table_nested: concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10Gbps\" = { \"10Gbps\" = 1 } }\n", burst!()),
            "switch.ecn_threshold", "the entry for \"10Gbps\" is a table";
        ecn_table_bad_entry: concat!(leaf_spine!(), "[switch]\necn_threshold = { \"10Gbps\" = -3 }\n", burst!()), "switch.ecn_threshold.10Gbps", "must not be negative";
        ecn_unknown_word: concat!(leaf_spine!(), "[switch]\necn_threshold = \"scale\"\n", burst!()), "switch.ecn_threshold", "\"scaled\"";
    }
}
