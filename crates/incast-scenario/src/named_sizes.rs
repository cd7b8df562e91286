//! The flow-size distributions the field's papers share, by name: `size = "web-search"` wherever
//! a size distribution goes. Since pFabric (SIGCOMM 2013) nearly every datacenter transport paper
//! draws its flows from the web search cluster of the DCTCP paper or the data mining cluster of
//! VL2, from the CDF files the public simulators ship; Facebook's Hadoop cluster joined them with
//! HPCC. Each file ships in `data/sizes/` with its source (repository, path, commit) and its mean
//! in its header, its data lines verbatim; docs/scenario.md says the same. They are read into a
//! `SizeDist::Cdf` by the traffic validator (`traffic::named_distribution`), drawn like any CDF
//! the user writes (linear interpolation between points). A leaf catalog: names, provenance and
//! the embedded files.


/// A shipped distribution: its name, its file and how to read the file's columns.
pub(crate) struct Shipped {
    pub(crate) name: &'static str,
    pub(crate) file: &'static str,
    pub(crate) text: &'static str,
    /// Bytes per unit of the size column: 1 for byte files, 1460 for the packet files of the
    /// pFabric-derived ns-2 scripts (1460 B of payload per packet).
    pub(crate) bytes_per_unit: u64,
    /// The column of the cumulative probability (0-based).
    pub(crate) cdf_column: usize,
    /// The cumulative probability is in percent (HPCC's files) rather than a fraction.
    pub(crate) percent: bool,
}

const SHIPPED: &[Shipped] = &[
    Shipped {
        name: "web-search",
        file: "data/sizes/web-search.txt",
        text: include_str!("../data/sizes/web-search.txt"),
        bytes_per_unit: 1,
        cdf_column: 1,
        percent: true,
    },
    Shipped {
        name: "data-mining",
        file: "data/sizes/data-mining.txt",
        text: include_str!("../data/sizes/data-mining.txt"),
        bytes_per_unit: 1460,
        cdf_column: 2,
        percent: false,
    },
    Shipped {
        name: "hadoop",
        file: "data/sizes/hadoop.txt",
        text: include_str!("../data/sizes/hadoop.txt"),
        bytes_per_unit: 1,
        cdf_column: 1,
        percent: true,
    },
];

/// The names, in the order messages list them.
pub const NAMES: [&str; 3] = ["web-search", "data-mining", "hadoop"];

/// The shipped name `s` stands for, matched as the other names of a scenario are (ASCII case
/// ignored, `_` like `-`), or None.
pub(crate) fn canonical(s: &str) -> Option<&'static str> {
    let wanted = s.trim().to_ascii_lowercase().replace('_', "-");
    SHIPPED.iter().map(|d| d.name).find(|name| *name == wanted)
}

/// The shipped file named `name` (one of [`NAMES`]), if there is one: the traffic validator reads
/// it into a distribution (`traffic::named_distribution`).
pub(crate) fn shipped(name: &str) -> Option<&'static Shipped> {
    SHIPPED.iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_like_other_names_and_unknown_ones_do_not() {
        assert_eq!(canonical("Web_Search"), Some("web-search"));
        assert_eq!(canonical("data-mining"), Some("data-mining"));
        assert_eq!(canonical("websearch"), None);
        for name in NAMES {
            assert_eq!(canonical(name), Some(name));
        }
    }
}
