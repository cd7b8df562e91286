//! D2TCP Section 4.2.1's OLDI workload as flows: the applications' trees placed on random hosts,
//! Poisson queries whose leaves all answer their parent at the same instant, and Section 4.2.3's
//! background senders.

use std::collections::HashSet;

use crate::rng::Rng;
use crate::scenario::{Connections, OldiSpec};

use crate::error::ResourceError;

use super::draw::{sample_deadline, Arrivals, FlowPlan, FlowSink};

/// One tree of an application: a parent and the leaves that answer it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tree {
    /// Index of the application.
    pub(crate) app: u32,
    /// Host of the parent.
    pub(crate) parent: u32,
    /// Hosts of the leaves; with background flows the last leaf is the background sender.
    pub(crate) leaves: Vec<u32>,
}

/// Plans every flow of `spec`, workload number `workload`, into `out` in start order.
pub(super) fn plan(spec: &OldiSpec, workload: u32, mut rng: Rng, out: &mut FlowSink<'_>) -> Result<(), ResourceError> {
    let trees = place(spec, &mut rng);
    // Each tree's queries and its background flows draw from streams of their own, so that
    // turning background flows on leaves every query and every remaining leaf's deadline as it
    // was: runs with and without them compare query for query (D2TCP Figure 14 against 10).
    let queries_seed = rng.uniform_u64(0, u64::MAX);
    let background_seed = rng.uniform_u64(0, u64::MAX);
    let first = out.flows.len();
    // The background sender, if any, is the last leaf; it no longer answers queries.
    let answering = spec.fan_in as usize - usize::from(spec.background.is_some());
    let persistent = spec.connections == Connections::Persistent;
    for (i, tree) in trees.iter().enumerate() {
        let app = &spec.apps[tree.app as usize];
        let options = spec.app_options(tree.app as usize);
        let deadlines = spec.variance.around(app.base_deadline);
        let rate = spec.load.queries_per_sec(spec.fan_in, app.message_bytes);
        let mut rng = Rng::new(queries_seed, i as u64);
        let mut queries = Arrivals::new(1.0 / rate, spec.start, spec.stop);
        while let Some(at) = queries.next(&mut rng) {
            for (l, &leaf) in tree.leaves.iter().enumerate() {
                // Drawn for the background sender too, for the same remaining deadlines.
                let deadline = sample_deadline(&deadlines, &mut rng);
                if l < answering {
                    let flow = FlowPlan::new(workload, &options, leaf, tree.parent, Some(app.message_bytes), at, Some(deadline));
                    out.push(FlowPlan { app: Some(tree.app), persistent, ..flow })?;
                }
            }
        }
        if let Some(background) = &spec.background {
            let mut rng = Rng::new(background_seed, i as u64);
            let options = spec.background_options();
            let sender = tree.leaves[answering];
            let mut arrivals = Arrivals::new(background.mean_interval.as_secs_f64(), spec.start, spec.stop);
            while let Some(at) = arrivals.next(&mut rng) {
                let flow = FlowPlan::new(workload, &options, sender, tree.parent, Some(background.size_bytes), at, None);
                out.push(FlowPlan { app: Some(tree.app), background: true, ..flow })?;
            }
        }
    }
    // Flow ids follow start order within a workload; a stable sort keeps simultaneous flows in
    // tree and leaf order.
    out.flows[first..].sort_by_key(|f| f.start);
    Ok(())
}

/// Shares the hosts out among the applications at random, `spec.hosts_per_app()` each, and
/// places every tree on its application's share, parent first, then leaves (D2TCP Section 4.2.1:
/// "The assignment of an application node to a physical end-host is random"). Nodes are dealt
/// from a shuffled deck of the share, reshuffled when it runs out, so that no host serves a
/// second node before every host of the share serves one; a tree's nodes are distinct hosts.
pub(crate) fn place(spec: &OldiSpec, rng: &mut Rng) -> Vec<Tree> {
    let mut hosts = spec.hosts.clone();
    shuffle(&mut hosts, rng);
    let per_app = spec.hosts_per_app();
    let mut trees = Vec::with_capacity(spec.apps.len() * spec.trees_per_app as usize);
    for (app, share) in hosts.chunks_exact(per_app).take(spec.apps.len()).enumerate() {
        let mut deck = Deck { hosts: share.to_vec(), next: share.len() };
        for _ in 0..spec.trees_per_app {
            let mut nodes = Vec::with_capacity(spec.fan_in as usize + 1);
            for _ in 0..=spec.fan_in {
                let host = deck.deal(rng, &nodes);
                nodes.push(host);
            }
            let parent = nodes[0];
            nodes.remove(0);
            trees.push(Tree { app: app as u32, parent, leaves: nodes });
        }
    }
    trees
}

/// The hosts of one share in random order, dealt one at a time.
struct Deck {
    hosts: Vec<u32>,
    /// Position of the next host to deal.
    next: usize,
}

impl Deck {
    /// The next host. `tree` holds the hosts of the tree being placed (fewer than the share):
    /// when a new pass begins they go to its end, so the tree's remaining nodes are new hosts.
    fn deal(&mut self, rng: &mut Rng, tree: &[u32]) -> u32 {
        if self.next == self.hosts.len() {
            shuffle(&mut self.hosts, rng);
            let tree: HashSet<u32> = tree.iter().copied().collect();
            self.hosts.sort_by_key(|h| tree.contains(h));
            self.next = 0;
        }
        self.next += 1;
        self.hosts[self.next - 1]
    }
}

/// Fisher-Yates.
fn shuffle(v: &mut [u32], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.index(i + 1));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use incast_proto::time::{BitsPerSec, Duration, Instant};

    use super::*;
    use crate::scenario::{BackgroundSpec, DeadlineVariance, FlowOptions, Protocol, QueryLoad, WorkloadSpec, D2TCP_APPS};
    use crate::workload::plan as plan_all;

    /// The paper's 1000 hosts, `fan_in` leaves, 20% utilization of 1 Gbps for `ms` milliseconds.
    fn paper(fan_in: u32, ms: u64) -> OldiSpec {
        let load = QueryLoad::Utilization { fraction: 0.2, link: BitsPerSec::GBPS };
        OldiSpec::d2tcp((0..1000).collect(), fan_in, load, Instant::ZERO + Duration::from_ms(ms))
    }

    /// The flows of `spec` as the only workload of a run seeded with `seed`.
    fn flows(spec: &OldiSpec, seed: u64) -> Vec<FlowPlan> {
        plan_all(&[WorkloadSpec::Oldi(spec.clone())], seed, u64::MAX).unwrap().flows
    }

    /// The trees of the same run (workload 0 draws from stream 0).
    fn trees(spec: &OldiSpec, seed: u64) -> Vec<Tree> {
        place(spec, &mut Rng::new(seed, 0))
    }

    /// Hosts that serve some node of each application.
    fn hosts_of_each_app(trees: &[Tree]) -> Vec<HashSet<u32>> {
        let mut out = vec![HashSet::new(); 5];
        for t in trees {
            out[t.app as usize].insert(t.parent);
            out[t.app as usize].extend(&t.leaves);
        }
        out
    }

    #[test]
    fn each_app_gets_its_own_fifth_of_the_hosts_and_uses_all_of_it() {
        // Five trees of 1 + 39 nodes fill a 200-host share exactly: every host serves one node.
        let spec = paper(39, 10);
        let trees = trees(&spec, 1);
        assert_eq!(trees.len(), 25);
        let shares = hosts_of_each_app(&trees);
        for (a, share) in shares.iter().enumerate() {
            assert_eq!(share.len(), 200, "app {a}");
            assert_eq!(trees.iter().filter(|t| t.app == a as u32).count(), 5);
            for other in &shares[a + 1..] {
                assert!(share.is_disjoint(other), "shares of two apps overlap");
            }
        }
        let all: HashSet<u32> = shares.iter().flatten().copied().collect();
        assert_eq!(all, (0..1000).collect::<HashSet<u32>>());
    }

    #[test]
    fn a_host_serves_two_nodes_only_once_its_share_is_used_up() {
        // 5 x 41 = 205 nodes on 200 hosts: exactly 5 hosts per app serve two nodes, none three.
        let spec = paper(40, 10);
        let trees = trees(&spec, 2);
        for a in 0..5 {
            let mut roles: HashMap<u32, u32> = HashMap::new();
            for t in trees.iter().filter(|t| t.app == a) {
                for &h in std::iter::once(&t.parent).chain(&t.leaves) {
                    *roles.entry(h).or_default() += 1;
                }
            }
            assert_eq!(roles.len(), 200, "app {a}");
            assert_eq!(roles.values().filter(|&&n| n == 2).count(), 5, "app {a}");
            assert!(roles.values().all(|&n| n <= 2));
        }
        // The parents, dealt first in their tree, all come from the first pass: distinct hosts.
        let parents: HashSet<u32> = trees.iter().map(|t| t.parent).collect();
        assert_eq!(parents.len(), 25);
    }

    #[test]
    fn nodes_of_a_tree_are_distinct_even_when_the_share_is_dealt_many_times() {
        for (fan_in, trees_per_app) in [(5, 5), (40, 5), (199, 3), (150, 7), (1, 400)] {
            for seed in 0..5 {
                let spec = OldiSpec { trees_per_app, ..paper(fan_in, 10) };
                let trees = trees(&spec, seed);
                assert_eq!(trees.len(), 5 * trees_per_app as usize);
                for t in &trees {
                    assert_eq!(t.leaves.len(), fan_in as usize);
                    let nodes: HashSet<u32> = std::iter::once(t.parent).chain(t.leaves.iter().copied()).collect();
                    assert_eq!(nodes.len(), fan_in as usize + 1, "fan-in {fan_in}, seed {seed}: a repeated node");
                }
            }
        }
    }

    #[test]
    fn hosts_beyond_an_even_split_serve_no_application() {
        let spec = OldiSpec { hosts: (10..23).collect(), ..paper(1, 10) };
        // 13 hosts for 5 apps: 2 each, 3 left over.
        let trees = trees(&spec, 3);
        let used: HashSet<u32> = hosts_of_each_app(&trees).into_iter().flatten().collect();
        assert_eq!(used.len(), 10);
        assert!(used.iter().all(|h| (10..23).contains(h)));
    }

    #[test]
    fn messages_carry_their_apps_size_and_a_deadline_from_its_base() {
        let f = flows(&paper(10, 20), 4);
        let leaves_answering = |a: u32| f.iter().filter(|p| p.app == Some(a)).count();
        for (a, &(size, base)) in D2TCP_APPS.iter().enumerate() {
            let app = Some(a as u32);
            assert!(leaves_answering(a as u32) > 0, "app {a} sent nothing");
            for p in f.iter().filter(|p| p.app == app) {
                assert_eq!(p.size_bytes, Some(size));
                let d = p.deadline.expect("every message has a deadline");
                // Medium variance: base x U[1, 1.5].
                assert!(d >= base && d.as_ps() <= base.as_ps() * 3 / 2, "app {a}: deadline {d}");
                assert!(!p.background && p.round == 0 && p.workload == 0);
            }
        }
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start), "flows in start order");
        assert!(f.iter().all(|p| p.start < Instant::ZERO + Duration::from_ms(20)));
    }

    #[test]
    fn a_query_is_a_fan_in_burst_of_every_leaf_at_one_instant() {
        let spec = paper(10, 20);
        let f = flows(&spec, 5);
        let mut bursts: HashMap<(u32, u64), Vec<u32>> = HashMap::new();
        for p in &f {
            bursts.entry((p.dst, p.start.as_ps())).or_default().push(p.src);
        }
        let trees = trees(&spec, 5);
        let leaves_of: HashMap<u32, &Vec<u32>> = trees.iter().map(|t| (t.parent, &t.leaves)).collect();
        for ((parent, _), mut senders) in bursts {
            let mut leaves = leaves_of[&parent].clone();
            senders.sort_unstable();
            leaves.sort_unstable();
            assert_eq!(senders, leaves, "a query of the tree under {parent}");
        }
    }

    #[test]
    fn query_counts_follow_the_utilization() {
        // App 0 at 20% of 1 Gbps with 10 leaves of 2 KB: 1250 queries/s per tree, so 5 trees
        // over 0.2 s expect 1250 queries (12 500 messages); Poisson: within 4 standard deviations.
        let f = flows(&paper(10, 200), 6);
        let messages = f.iter().filter(|p| p.app == Some(0)).count() as f64;
        let expected = 1250.0 * 10.0;
        let sd = (1250.0f64).sqrt() * 10.0;
        assert!((messages - expected).abs() < 4.0 * sd, "{messages} messages, expected {expected}");
    }

    #[test]
    fn deadline_variances_stay_in_bounds_and_have_the_papers_means() {
        let base = Duration::from_ms(20);
        let mut rng = Rng::new(7, 0);
        let n = 200_000;
        for (variance, lo, hi, mean) in [
            (DeadlineVariance::Low, 1.0, 1.1, 1.05),
            (DeadlineVariance::Medium, 1.0, 1.5, 1.25),
            (DeadlineVariance::High, 0.0, f64::INFINITY, 1.0),
        ] {
            let dist = variance.around(base);
            let draws: Vec<f64> = (0..n).map(|_| sample_deadline(&dist, &mut rng).as_secs_f64() / base.as_secs_f64()).collect();
            assert!(draws.iter().all(|&x| x >= lo && x <= hi && x > 0.0), "{variance:?} out of [{lo}, {hi}]");
            let m = draws.iter().sum::<f64>() / n as f64;
            // Standard error of the mean: 0.03/sqrt(n) uniform, 1/sqrt(n) exponential (0.0022).
            assert!((m - mean).abs() < 0.01, "{variance:?}: mean {m}, expected {mean}");
        }
    }

    #[test]
    fn background_senders_replace_one_leaf_per_tree() {
        let plain = paper(10, 300);
        let with = OldiSpec { background: Some(BackgroundSpec::default()), ..plain.clone() };
        let f = flows(&with, 8);
        let trees = trees(&with, 8);
        let background: Vec<&FlowPlan> = f.iter().filter(|p| p.background).collect();
        // 25 senders, one flow per 300 ms each over 0.3 s: about 25 flows.
        assert!((10..50).contains(&background.len()), "{} background flows", background.len());
        for t in &trees {
            let sender = *t.leaves.last().unwrap();
            let from_sender: Vec<&FlowPlan> = f.iter().filter(|p| p.src == sender && p.dst == t.parent).collect();
            assert!(from_sender.iter().all(|p| p.background), "the background sender answered a query");
            for p in from_sender {
                assert_eq!((p.size_bytes, p.deadline, p.app), (Some(1_000_000), None, Some(t.app)));
            }
            // Every query of the tree now has fan_in - 1 messages.
            let mut per_query: HashMap<u64, usize> = HashMap::new();
            for p in f.iter().filter(|p| !p.background && p.dst == t.parent && t.leaves.contains(&p.src)) {
                *per_query.entry(p.start.as_ps()).or_default() += 1;
            }
            assert!(!per_query.is_empty());
            assert!(per_query.values().all(|&n| n == 9), "{per_query:?}");
        }
        // The other leaves' messages are exactly those of the run without background flows.
        let senders: HashSet<(u32, u32)> = trees.iter().map(|t| (*t.leaves.last().unwrap(), t.parent)).collect();
        let without: Vec<FlowPlan> = flows(&plain, 8).into_iter().filter(|p| !senders.contains(&(p.src, p.dst))).collect();
        let oldi: Vec<FlowPlan> = f.iter().filter(|p| !p.background).copied().collect();
        assert_eq!(oldi, without);
    }

    #[test]
    fn plans_are_deterministic_per_seed_and_differ_between_seeds() {
        let spec = OldiSpec { background: Some(BackgroundSpec::default()), ..paper(20, 30) };
        assert_eq!(flows(&spec, 9), flows(&spec, 9));
        assert_ne!(flows(&spec, 9), flows(&spec, 10));
        assert_ne!(trees(&spec, 9), trees(&spec, 10));
    }

    #[test]
    fn per_app_and_background_protocols_override_the_workloads() {
        let mut spec = paper(5, 300);
        spec.options = FlowOptions { protocol: Some(Protocol::Dctcp), ..FlowOptions::default() };
        spec.apps[1].protocol = Some(Protocol::Tcp);
        spec.background = Some(BackgroundSpec { protocol: Some(Protocol::Tcp), ..BackgroundSpec::default() });
        let f = flows(&spec, 11);
        for p in &f {
            let expected = if p.background || p.app == Some(1) { Protocol::Tcp } else { Protocol::Dctcp };
            assert_eq!(p.protocol, Some(expected), "{p:?}");
        }
        assert!(f.iter().any(|p| p.background));
    }
}
