//! [`TagQuery`]: nestable all-of / any-of / none-of tag requirements.

use serde::{Deserialize, Serialize};

use super::{Tag, TagRegistry, TagSet};
use crate::diagnostics::LoadErrors;

/// A requirement on a set of tags (the role of `FGameplayTagQuery`).
///
/// A query matches a [`TagSet`] when every clause it states holds:
///
/// - `all`: every listed tag is present;
/// - `any`: at least one listed tag is present (skipped when empty);
/// - `none`: no listed tag is present;
/// - `all_of`: every sub-query matches;
/// - `any_of`: at least one sub-query matches (skipped when empty);
/// - `none_of`: no sub-query matches.
///
/// "Present" is parent-aware, as in GAS: `none: ["Action.Modal"]` fails on
/// an owner holding `Action.Modal.Banking`. The empty query states nothing and
/// matches every set, including the empty one; use it for "no requirement".
///
/// Evaluation walks the stored tree and never allocates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagQuery {
    all: TagSet,
    any: TagSet,
    none: TagSet,
    all_of: Vec<TagQuery>,
    any_of: Vec<TagQuery>,
    none_of: Vec<TagQuery>,
}

impl TagQuery {
    /// The empty query: matches everything.
    pub fn new() -> Self {
        Self::default()
    }

    /// Requires every tag in `tags`.
    pub fn require_all(mut self, tags: impl IntoIterator<Item = Tag>) -> Self {
        self.all.extend(tags);
        self
    }

    /// Requires at least one tag in `tags`.
    pub fn require_any(mut self, tags: impl IntoIterator<Item = Tag>) -> Self {
        self.any.extend(tags);
        self
    }

    /// Forbids every tag in `tags`.
    pub fn forbid(mut self, tags: impl IntoIterator<Item = Tag>) -> Self {
        self.none.extend(tags);
        self
    }

    /// Requires `query` to match as well.
    pub fn and(mut self, query: TagQuery) -> Self {
        self.all_of.push(query);
        self
    }

    /// Requires at least one of the queries added with `or` to match.
    pub fn or(mut self, query: TagQuery) -> Self {
        self.any_of.push(query);
        self
    }

    /// Requires `query` not to match.
    pub fn and_not(mut self, query: TagQuery) -> Self {
        self.none_of.push(query);
        self
    }

    /// True when the query states no clause (and so matches everything).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
            && self.any.is_empty()
            && self.none.is_empty()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.none_of.is_empty()
    }

    /// Adds every tag the query mentions, at any depth, to `out`.
    pub fn collect_tags(&self, out: &mut TagSet) {
        for set in [&self.all, &self.any, &self.none] {
            out.extend_from(set);
        }
        for query in self.all_of.iter().chain(&self.any_of).chain(&self.none_of) {
            query.collect_tags(out);
        }
    }

    /// Evaluates the query against `tags`.
    // Most requirements in content are empty: that answer is inlined where
    // a query is asked, the clauses are not.
    #[inline]
    pub fn matches(&self, tags: &TagSet) -> bool {
        self.is_empty() || self.clauses_match(tags)
    }

    /// [`matches`](Self::matches) of a query with clauses.
    #[inline(never)]
    fn clauses_match(&self, tags: &TagSet) -> bool {
        tags.has_all(&self.all)
            && (self.any.is_empty() || tags.has_any(&self.any))
            && !tags.has_any(&self.none)
            && self.all_of.iter().all(|q| q.matches(tags))
            && (self.any_of.is_empty() || self.any_of.iter().any(|q| q.matches(tags)))
            && !self.none_of.iter().any(|q| q.matches(tags))
    }
}

/// The data form of a [`TagQuery`], as written in RON:
///
/// ```ron
/// (all: ["Status.InCombat"], none: ["Status.Dead", "Action.Modal"])
/// (any_of: [(all: ["Combat.Style.Aggressive"]), (none: ["Status.Stunned"])])
/// ```
///
/// Every field is optional. Unknown field names are an error, so a typo like
/// `nope:` cannot silently drop a requirement.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TagQueryDef {
    /// Tags that must all be present.
    pub all: Vec<String>,
    /// Tags of which at least one must be present.
    pub any: Vec<String>,
    /// Tags of which none may be present.
    pub none: Vec<String>,
    /// Sub-queries that must all match.
    pub all_of: Vec<TagQueryDef>,
    /// Sub-queries of which at least one must match.
    pub any_of: Vec<TagQueryDef>,
    /// Sub-queries of which none may match.
    pub none_of: Vec<TagQueryDef>,
}

impl TagQueryDef {
    /// Resolves every name against `registry`. Unknown names are reported in
    /// `errors` located in `source` (the text of `file`), and the query is
    /// built from the names that did resolve.
    pub fn resolve(
        &self,
        registry: &TagRegistry,
        file: &str,
        source: &str,
        errors: &mut LoadErrors,
    ) -> TagQuery {
        let set = |names: &[String], errors: &mut LoadErrors| -> TagSet {
            names
                .iter()
                .filter_map(|name| {
                    registry
                        .resolve_in(name, file, source)
                        .map_err(|e| errors.push(e))
                        .ok()
                })
                .collect()
        };
        let nested = |defs: &[TagQueryDef], errors: &mut LoadErrors| -> Vec<TagQuery> {
            defs.iter()
                .map(|d| d.resolve(registry, file, source, errors))
                .collect()
        };
        TagQuery {
            all: set(&self.all, errors),
            any: set(&self.any, errors),
            none: set(&self.none, errors),
            all_of: nested(&self.all_of, errors),
            any_of: nested(&self.any_of, errors),
            none_of: nested(&self.none_of, errors),
        }
    }

    /// Parses a query from RON text and resolves it; `file` names the source
    /// in diagnostics.
    pub fn parse(text: &str, file: &str, registry: &TagRegistry) -> Result<TagQuery, LoadErrors> {
        let def: TagQueryDef = crate::ron_format::from_str(text, file)?;
        let mut errors = LoadErrors::default();
        let query = def.resolve(registry, file, text, &mut errors);
        errors.into_result(query)
    }
}
