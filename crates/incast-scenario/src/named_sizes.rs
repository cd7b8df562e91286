//! The flow-size distributions the field's papers share, by name: `size = "web-search"` wherever
//! a size distribution goes. Since pFabric (SIGCOMM 2013) nearly every datacenter transport paper
//! draws its flows from the web search cluster of the DCTCP paper or the data mining cluster of
//! VL2, from the CDF files the public simulators ship; Facebook's Hadoop cluster joined them with
//! HPCC; Homa (SIGCOMM 2018) measures its five workloads W1-W5 as the message sizes of its own
//! simulator's files (`homa-w1` to `homa-w5`). Each file ships in `data/sizes/` with its source
//! (repository, path, commit) and its mean in its header, its data lines verbatim; docs/scenario.md
//! says the same. They are read into a `SizeDist::Cdf` by the traffic validator
//! (`traffic::named_distribution`), drawn like any CDF the user writes (linear interpolation
//! between points), or, for Homa's, as the step CDF its generator draws from (every message one of
//! the sizes listed). A leaf catalog: names, provenance and the embedded files.


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
    /// A step CDF: a flow has exactly one of the sizes listed, the smallest whose probability
    /// reaches the draw (HomaSimulation's `MsgSizeDistributions`), rather than a size
    /// interpolated between two of them.
    pub(crate) step: bool,
    /// A generalized Pareto tail beyond the last point, discretized as the file's simulator does.
    pub(crate) tail: Option<ParetoTail>,
}

/// A generalized Pareto tail of a size distribution beyond its last listed point (size s0 at
/// probability p0): the size at probability p is `s0 + ((1 - p0) / (1 - p))^k - 1) * sigma / k`,
/// rounded. HomaSimulation's `WorkloadEstimator` (the distribution its priorities are computed
/// from) discretizes it in `steps` equal steps of probability up to `last`, a size repeated
/// taking the later probability, and gives the last size the rest of the probability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ParetoTail {
    pub(crate) k: f64,
    pub(crate) sigma: f64,
    pub(crate) last: f64,
    pub(crate) steps: u32,
}

/// Homa's W1 (Facebook's key-value store, Atikoglu et al., SIGMETRICS 2012): HomaSimulation's
/// `MsgSizeDistributions::getFacebookSizeInterarrival` and `WorkloadEstimator` constants.
const FACEBOOK_KEY_VALUE_TAIL: ParetoTail = ParetoTail { k: 0.348238, sigma: 214.476, last: 0.999, steps: 1000 };

/// A file of Homa's simulator: sizes in units of `bytes_per_unit`, a fraction, a step CDF.
const fn homa(name: &'static str, file: &'static str, text: &'static str, bytes_per_unit: u64, tail: Option<ParetoTail>) -> Shipped {
    Shipped { name, file, text, bytes_per_unit, cdf_column: 1, percent: false, step: true, tail }
}

const SHIPPED: &[Shipped] = &[
    Shipped {
        name: "web-search",
        file: "data/sizes/web-search.txt",
        text: include_str!("../data/sizes/web-search.txt"),
        bytes_per_unit: 1,
        cdf_column: 1,
        percent: true,
        step: false,
        tail: None,
    },
    Shipped {
        name: "data-mining",
        file: "data/sizes/data-mining.txt",
        text: include_str!("../data/sizes/data-mining.txt"),
        bytes_per_unit: 1460,
        cdf_column: 2,
        percent: false,
        step: false,
        tail: None,
    },
    Shipped {
        name: "hadoop",
        file: "data/sizes/hadoop.txt",
        text: include_str!("../data/sizes/hadoop.txt"),
        bytes_per_unit: 1,
        cdf_column: 1,
        percent: true,
        step: false,
        tail: None,
    },
    homa("homa-w1", "data/sizes/homa-w1.txt", include_str!("../data/sizes/homa-w1.txt"), 1, Some(FACEBOOK_KEY_VALUE_TAIL)),
    homa("homa-w2", "data/sizes/homa-w2.txt", include_str!("../data/sizes/homa-w2.txt"), 1, None),
    homa("homa-w3", "data/sizes/homa-w3.txt", include_str!("../data/sizes/homa-w3.txt"), 1, None),
    homa("homa-w4", "data/sizes/homa-w4.txt", include_str!("../data/sizes/homa-w4.txt"), 1, None),
    // Sizes in packets of 1442 B of message (HomaSimulation's `maxDataBytesPerPkt`).
    homa("homa-w5", "data/sizes/homa-w5.txt", include_str!("../data/sizes/homa-w5.txt"), 1442, None),
];

/// The names, in the order messages list them.
pub const NAMES: [&str; 8] = ["web-search", "data-mining", "hadoop", "homa-w1", "homa-w2", "homa-w3", "homa-w4", "homa-w5"];

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
