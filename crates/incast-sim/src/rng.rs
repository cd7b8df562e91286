//! Seeded random streams. Each consumer derives its own stream from the scenario seed and a stream
//! number, so adding draws in one workload never shifts the numbers another workload sees.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::routing::mix;

/// A deterministic random stream.
#[derive(Clone)]
pub(crate) struct Rng(Xoshiro256PlusPlus);

impl Rng {
    /// Stream `stream` of the run seeded with `seed`.
    pub(crate) fn new(seed: u64, stream: u64) -> Rng {
        Rng(Xoshiro256PlusPlus::seed_from_u64(mix(seed) ^ mix(stream.wrapping_add(0x5EED))))
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [lo, hi] (unbiased by rejection).
    pub(crate) fn uniform_u64(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        let span = hi - lo;
        if span == u64::MAX {
            return self.0.next_u64();
        }
        let n = span + 1;
        let zone = u64::MAX - (u64::MAX % n) - 1;
        loop {
            let x = self.0.next_u64();
            if x <= zone {
                return lo + x % n;
            }
        }
    }

    /// Exponential with mean `mean` (inverse transform).
    pub(crate) fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }

    /// Uniform index in [0, n).
    pub(crate) fn index(&mut self, n: usize) -> usize {
        self.uniform_u64(0, n as u64 - 1) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map({ let mut r = Rng::new(1, 0); move |_| r.uniform_u64(0, 1000) }).collect();
        let b: Vec<u64> = (0..4).map({ let mut r = Rng::new(1, 0); move |_| r.uniform_u64(0, 1000) }).collect();
        let c: Vec<u64> = (0..4).map({ let mut r = Rng::new(1, 1); move |_| r.uniform_u64(0, 1000) }).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = Rng::new(7, 0);
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(20.0)).sum::<f64>() / n as f64;
        assert!((mean - 20.0).abs() < 0.2, "mean {mean}");
    }

    #[test]
    fn uniform_covers_both_ends() {
        let mut r = Rng::new(3, 0);
        let draws: Vec<u64> = (0..1000).map(|_| r.uniform_u64(2, 4)).collect();
        assert!(draws.contains(&2) && draws.contains(&4) && draws.iter().all(|&x| (2..=4).contains(&x)));
    }
}
