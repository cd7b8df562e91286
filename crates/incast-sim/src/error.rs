//! Why a simulation could not be built or run: a scenario the engine refuses (the user's to fix,
//! [`ScenarioError`]) or memory the run could not get ([`ResourceError`]). Allocations that grow
//! with the input (flow tables, per-host and per-port state, routing tables, sample series,
//! generated workloads) go through [`try_vec`] and [`reserve`], so that running out of memory is
//! an error the caller can report, never an abort that takes a whole sweep down.

use std::fmt;

// The parser's error type, not through `crate::scenario`, which builds topologies to name their
// ports and so depends on this module.
use incast_scenario::ScenarioError;

/// A run needed more memory, or more of a limited resource, than it could have.
///
/// `path` names the scenario key that drove the demand when one did (`run.max_samples`,
/// `workload[0].rate`), and is empty for an allocation that failed with no single key to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceError {
    /// Dotted key path, or `""`.
    pub path: String,
    /// What could not be had, and how much.
    pub message: String,
}

impl ResourceError {
    /// An error at `path` (empty when no key is to blame).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ResourceError { path: path.into(), message: message.into() }
    }

    /// Allocating `count` values of `T` for `what` failed.
    pub(crate) fn allocation<T>(what: &str, count: usize) -> Self {
        let bytes = (count as u128).saturating_mul(std::mem::size_of::<T>() as u128);
        ResourceError::new("", format!("out of memory: cannot allocate {what} ({count} entries, {bytes} bytes)"))
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        incast_scenario::fmt_keyed(f, &self.path, &self.message)
    }
}

impl std::error::Error for ResourceError {}

/// Why [`crate::Simulation::new`] or [`crate::run`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The scenario cannot be simulated as written.
    Scenario(ScenarioError),
    /// The run could not get the memory it needed.
    Resource(ResourceError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Scenario(e) => e.fmt(f),
            Error::Resource(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Scenario(e)
    }
}

impl From<ResourceError> for Error {
    fn from(e: ResourceError) -> Self {
        Error::Resource(e)
    }
}

/// `count` copies of `value`, or a [`ResourceError`] naming `what` if the memory is not there.
pub(crate) fn try_vec<T: Clone>(count: usize, value: T, what: &str) -> Result<Vec<T>, ResourceError> {
    let mut v = Vec::new();
    reserve(&mut v, count, what)?;
    v.resize(count, value);
    Ok(v)
}

/// Makes `v` at least `len` long, filling with `value`, or a [`ResourceError`] naming `what`:
/// for tables indexed by a number that may arrive out of order (flows drawn during a run).
pub(crate) fn grow_to<T: Clone>(v: &mut Vec<T>, len: usize, value: T, what: &str) -> Result<(), ResourceError> {
    if len > v.len() {
        reserve(v, len - v.len(), what)?;
        v.resize(len, value);
    }
    Ok(())
}

/// Makes room in `v` for `additional` more values, or a [`ResourceError`] naming `what`.
pub(crate) fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<(), ResourceError> {
    v.try_reserve(additional).map_err(|_| ResourceError::allocation::<T>(what, v.len().saturating_add(additional)))
}

/// Appends `more` to `values`, or a [`ResourceError`] naming `what`: the rows of another
/// engine joined to one's (`crate::sim::crew`).
pub(crate) fn try_extend<T>(values: &mut Vec<T>, more: Vec<T>, what: &str) -> Result<(), ResourceError> {
    reserve(values, more.len(), what)?;
    values.extend(more);
    Ok(())
}

/// `values` in `order` (indices into it, possibly fewer), or a [`ResourceError`] naming `what`:
/// the columns of a table put in the order of its rows sorted apart.
pub(crate) fn try_permute<T: Copy>(values: &mut Vec<T>, order: &[usize], what: &str) -> Result<(), ResourceError> {
    let mut ordered = Vec::new();
    reserve(&mut ordered, order.len(), what)?;
    ordered.extend(order.iter().map(|&i| values[i]));
    *values = ordered;
    Ok(())
}

/// `text` in a box of its own, or a [`ResourceError`] naming `what`: for names, one per node of
/// a graph file, which are many small allocations on a large network.
pub(crate) fn try_boxed_str(text: &str, what: &str) -> Result<Box<str>, ResourceError> {
    let mut s = String::new();
    // Exact, so that boxing keeps the allocation instead of shrinking it.
    s.try_reserve_exact(text.len()).map_err(|_| ResourceError::allocation::<u8>(what, text.len()))?;
    s.push_str(text);
    Ok(s.into_boxed_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_allocation_is_an_error_not_an_abort() {
        let e = try_vec(usize::MAX / 2, 0u64, "the flow table").unwrap_err();
        assert_eq!(e.path, "");
        assert!(e.message.starts_with("out of memory: cannot allocate the flow table"), "{e}");
        let mut v = vec![1u32];
        assert!(reserve(&mut v, usize::MAX, "routes").is_err());
        assert_eq!(v, [1], "a failed reservation leaves the vector as it was");
    }

    #[test]
    fn display_quotes_the_path() {
        let e = ResourceError::new("run.max_samples", "too many rows");
        assert_eq!(e.to_string(), "`run.max_samples`: too many rows");
        assert_eq!(Error::from(e).to_string(), "`run.max_samples`: too many rows");
    }
}
