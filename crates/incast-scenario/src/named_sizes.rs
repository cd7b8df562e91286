//! The flow-size distributions the field's papers share, by name: `size = "web-search"` wherever
//! a size distribution goes. Since pFabric (SIGCOMM 2013) nearly every datacenter transport paper
//! draws its flows from the web search cluster of the DCTCP paper or the data mining cluster of
//! VL2, from the CDF files the public simulators ship; Facebook's Hadoop cluster joined them with
//! HPCC. Each file ships in `data/sizes/` with its source (repository, path, commit) and its mean
//! in its header, its data lines verbatim; docs/scenario.md says the same. They are read into a
//! [`SizeDist::Cdf`], drawn like any CDF the user writes (linear interpolation between points).

use crate::spec::SizeDist;
use crate::ScenarioError;

/// A shipped distribution: its name, its file and how to read the file's columns.
struct Shipped {
    name: &'static str,
    file: &'static str,
    text: &'static str,
    /// Bytes per unit of the size column: 1 for byte files, 1460 for the packet files of the
    /// pFabric-derived ns-2 scripts (1460 B of payload per packet).
    bytes_per_unit: u64,
    /// The column of the cumulative probability (0-based).
    cdf_column: usize,
    /// The cumulative probability is in percent (HPCC's files) rather than a fraction.
    percent: bool,
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

/// The distribution named `name` (one of [`NAMES`]), validated as a `cdf` table would be; an
/// error names the key `p` (and the shipped file, were one malformed).
pub fn distribution(p: &str, name: &str) -> Result<SizeDist, ScenarioError> {
    let shipped = SHIPPED
        .iter()
        .find(|d| d.name == name)
        .ok_or_else(|| crate::check::err(p, format!("no shipped distribution named \"{name}\"")))?;
    let mut points = Vec::new();
    for (n, line) in shipped.text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || crate::check::err(p, format!("{} line {}: not a size and a probability", shipped.file, n + 1));
        let fields: Vec<&str> = line.split_whitespace().collect();
        let size: f64 = fields.first().and_then(|v| v.parse().ok()).ok_or_else(bad)?;
        let cdf: f64 = fields.get(shipped.cdf_column).and_then(|v| v.parse().ok()).ok_or_else(bad)?;
        let bytes = (size * shipped.bytes_per_unit as f64).round() as u64;
        let prob = if shipped.percent { cdf / 100.0 } else { cdf };
        // The sampler starts from (0 B, 0) already; a file's own origin point adds nothing.
        if bytes == 0 && prob == 0.0 {
            continue;
        }
        points.push((bytes, prob));
    }
    crate::traffic::cdf_points(p, points)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The means each file's header states (and docs/scenario.md), from the points as incast
    /// reads them: the HPCC code's 1,711,250 B for web search; for data mining, 5,116.6 packets of
    /// 1460 B (the pFabric-derived scripts hard-code 5,117).
    #[test]
    fn each_named_distribution_has_its_stated_mean() {
        let mean = |name: &str| distribution("size", name).unwrap().mean_bytes();
        assert!((mean("web-search") - 1_711_250.0).abs() < 1e-6);
        assert!((mean("data-mining") - 7_470_236.0).abs() < 1.0);
        assert!((mean("hadoop") - 120_420.75).abs() < 1e-6);
    }

    #[test]
    fn names_match_like_other_names_and_unknown_ones_do_not() {
        assert_eq!(canonical("Web_Search"), Some("web-search"));
        assert_eq!(canonical("data-mining"), Some("data-mining"));
        assert_eq!(canonical("websearch"), None);
        for name in NAMES {
            assert_eq!(canonical(name), Some(name));
        }
    }

    /// Data mining keeps the step of its file: half the flows are exactly one packet.
    #[test]
    fn data_mining_keeps_its_one_packet_step() {
        let SizeDist::Cdf(points) = distribution("size", "data-mining").unwrap() else {
            panic!("not a CDF")
        };
        assert_eq!(&points[..2], &[(1460, 0.0), (1460, 0.5)]);
        assert_eq!(points.last(), Some(&(666_667 * 1460, 1.0)));
    }
}
