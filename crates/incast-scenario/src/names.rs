//! Closed sets of names a string key may take (`protocol = "dctcp"`, `kind = "fat-tree"`): the
//! trait a named enum implements, the newtype serde parses a name into, and a two-element array
//! type. A leaf of the scenario modules: the raw file types and the section modules read names
//! through it.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// A closed set of names a string key may take. Matching ignores ASCII case and treats `_` like
/// `-`, so `"DCTCP"` and `"fat_tree"` are accepted; error messages list the canonical names.
pub(crate) trait Named: Copy + 'static {
    /// What the name names, for messages ("protocol").
    const WHAT: &'static str;
    /// Every accepted name; the first name of each value is its canonical spelling.
    const NAMES: &'static [(&'static str, Self)];

    /// The canonical name of `self`.
    fn name(self) -> &'static str
    where
        Self: PartialEq,
    {
        Self::NAMES
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("?", |(n, _)| n)
    }
}

/// Looks `s` up among `T`'s names.
pub(crate) fn parse_name<T: Named>(s: &str) -> Result<T, String> {
    let wanted = s.trim().replace('_', "-");
    if let Some(&(_, value)) = T::NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(&wanted))
    {
        return Ok(value);
    }
    let names: Vec<String> = T::NAMES.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    Err(format!(
        "unknown {} {s:?}: expected one of {}",
        T::WHAT,
        names.join(", ")
    ))
}

/// A name of the closed set `T`, parsed while deserializing.
pub(crate) struct Name<T>(pub(crate) T);

impl<'de, T: Named> Deserialize<'de> for Name<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<T: Named> Visitor<'_> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a {} name (a string)", T::WHAT)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
                parse_name(v).map_err(E::custom)
            }
        }
        d.deserialize_str(V(PhantomData)).map(Name)
    }
}

/// A two-element array such as `[1, 0]` or `["1KB", 0.5]`. Unlike a serde tuple it rejects a
/// third element in every format (TOML's sequence access would silently drop it).
pub(crate) struct Pair<A, B>(pub(crate) A, pub(crate) B);

impl<'de, A: Deserialize<'de>, B: Deserialize<'de>> Deserialize<'de> for Pair<A, B> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<A, B>(PhantomData<(A, B)>);
        impl<'de, A: Deserialize<'de>, B: Deserialize<'de>> Visitor<'de> for V<A, B> {
            type Value = Pair<A, B>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of exactly 2 elements")
            }
            fn visit_seq<S: de::SeqAccess<'de>>(self, mut seq: S) -> Result<Pair<A, B>, S::Error> {
                let a = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let b = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                let mut len = 2;
                while seq.next_element::<de::IgnoredAny>()?.is_some() {
                    len += 1;
                }
                if len > 2 {
                    return Err(de::Error::invalid_length(len, &self));
                }
                Ok(Pair(a, b))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}
