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
///
/// Most requirements in content state nothing (an effect's application
/// and ongoing requirements, an ability's blocked and required tags), and
/// each is asked on every application or activation: so the clauses of a
/// query that has any sit behind one box, and the empty query is one null
/// word, asked in one comparison. Saved as its clauses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Clauses", into = "Clauses")]
pub struct TagQuery {
    /// `None` exactly when the query states nothing.
    clauses: Option<Box<Clauses>>,
}

/// What a non-empty [`TagQuery`] states.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "TagQuery")]
struct Clauses {
    all: TagSet,
    any: TagSet,
    none: TagSet,
    all_of: Vec<TagQuery>,
    any_of: Vec<TagQuery>,
    none_of: Vec<TagQuery>,
}

impl Clauses {
    fn is_empty(&self) -> bool {
        self.all.is_empty()
            && self.any.is_empty()
            && self.none.is_empty()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.none_of.is_empty()
    }

    /// [`TagQuery::matches_by`] of a query with clauses.
    fn matches_by(&self, has: &dyn Fn(Tag) -> bool) -> bool {
        self.all.iter().all(has)
            && (self.any.is_empty() || self.any.iter().any(has))
            && !self.none.iter().any(has)
            && self.all_of.iter().all(|q| q.matches_by(has))
            && (self.any_of.is_empty() || self.any_of.iter().any(|q| q.matches_by(has)))
            && !self.none_of.iter().any(|q| q.matches_by(has))
    }

    /// [`TagQuery::matches`] of a query with clauses: out of line, while
    /// the empty query's answer is inlined where a query is asked.
    #[inline(never)]
    fn matches(&self, tags: &TagSet) -> bool {
        tags.has_all(&self.all)
            && (self.any.is_empty() || tags.has_any(&self.any))
            && !tags.has_any(&self.none)
            && self.all_of.iter().all(|q| q.matches(tags))
            && (self.any_of.is_empty() || self.any_of.iter().any(|q| q.matches(tags)))
            && !self.none_of.iter().any(|q| q.matches(tags))
    }
}

impl From<Clauses> for TagQuery {
    fn from(clauses: Clauses) -> Self {
        TagQuery::stating(Box::new(clauses))
    }
}

impl From<TagQuery> for Clauses {
    fn from(query: TagQuery) -> Self {
        query.clauses.map_or_else(Clauses::default, |c| *c)
    }
}

impl TagQuery {
    /// True when the query forbids (in its own `none`) one of `tags` or a
    /// tag above one: while they are held, it never matches.
    pub(crate) fn forbids_any(&self, tags: &TagSet) -> bool {
        self.clauses
            .as_deref()
            .is_some_and(|c| tags.has_any(&c.none))
    }

    /// True when holding more tags never stops the query matching: it
    /// forbids nothing, at any depth (no `none` or `none_of`).
    pub(crate) fn only_asks(&self) -> bool {
        self.clauses.as_deref().is_none_or(|c| {
            c.none.is_empty()
                && c.none_of.is_empty()
                && c.all_of.iter().chain(&c.any_of).all(TagQuery::only_asks)
        })
    }

    /// The empty query: matches everything.
    pub fn new() -> Self {
        Self::default()
    }

    /// The query stating `clauses`. Clauses that state nothing make the
    /// empty query, so that queries equal in meaning compare equal.
    fn stating(clauses: Box<Clauses>) -> Self {
        TagQuery {
            clauses: (!clauses.is_empty()).then_some(clauses),
        }
    }

    /// This query with `add` applied to its clauses (in the box it has, or
    /// a new one).
    fn with(self, add: impl FnOnce(&mut Clauses)) -> Self {
        let mut clauses = self.clauses.unwrap_or_default();
        add(&mut clauses);
        Self::stating(clauses)
    }

    /// Requires every tag in `tags`.
    pub fn require_all(self, tags: impl IntoIterator<Item = Tag>) -> Self {
        self.with(|c| c.all.extend(tags))
    }

    /// Requires at least one tag in `tags`.
    pub fn require_any(self, tags: impl IntoIterator<Item = Tag>) -> Self {
        self.with(|c| c.any.extend(tags))
    }

    /// Forbids every tag in `tags`.
    pub fn forbid(self, tags: impl IntoIterator<Item = Tag>) -> Self {
        self.with(|c| c.none.extend(tags))
    }

    /// Requires `query` to match as well.
    pub fn and(self, query: TagQuery) -> Self {
        self.with(|c| c.all_of.push(query))
    }

    /// Requires at least one of the queries added with `or` to match.
    pub fn or(self, query: TagQuery) -> Self {
        self.with(|c| c.any_of.push(query))
    }

    /// Requires `query` not to match.
    pub fn and_not(self, query: TagQuery) -> Self {
        self.with(|c| c.none_of.push(query))
    }

    /// True when the query states no clause (and so matches everything).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.clauses.is_none()
    }

    /// Adds every tag the query mentions, at any depth, to `out`.
    pub fn collect_tags(&self, out: &mut TagSet) {
        let Some(clauses) = &self.clauses else {
            return;
        };
        for set in [&clauses.all, &clauses.any, &clauses.none] {
            out.extend_from(set);
        }
        for query in clauses
            .all_of
            .iter()
            .chain(&clauses.any_of)
            .chain(&clauses.none_of)
        {
            query.collect_tags(out);
        }
    }

    /// A tag the query needs and `tags` lacks, for a query `tags` does not
    /// meet: the first of its `all` missing, else (none of its `any`
    /// held) the first of them, else one from a nested query that fails.
    /// `None` when only a `none` clause fails: nothing is missing, a tag
    /// is held.
    pub(crate) fn first_missing(&self, tags: &TagSet) -> Option<Tag> {
        let clauses = self.clauses.as_ref()?;
        if let Some(missing) = clauses.all.iter().find(|&t| !tags.has(t)) {
            return Some(missing);
        }
        if !clauses.any.is_empty() && !clauses.any.iter().any(|t| tags.has(t)) {
            return clauses.any.iter().next();
        }
        if let Some(missing) = clauses
            .all_of
            .iter()
            .filter(|q| !q.matches(tags))
            .find_map(|q| q.first_missing(tags))
        {
            return Some(missing);
        }
        if !clauses.any_of.is_empty() && !clauses.any_of.iter().any(|q| q.matches(tags)) {
            return clauses.any_of.iter().find_map(|q| q.first_missing(tags));
        }
        None
    }

    /// A tag `tags` holds that makes the query match, for a query `tags`
    /// meets (a blocking one): the first of its `all` or `any` held, or one
    /// from a nested query that matches. `None` when the query matches
    /// only by what is absent (`none`).
    pub(crate) fn first_held(&self, tags: &TagSet) -> Option<Tag> {
        let clauses = self.clauses.as_ref()?;
        if let Some(held) = clauses
            .all
            .iter()
            .chain(clauses.any.iter())
            .find(|&t| tags.has(t))
        {
            return Some(held);
        }
        clauses
            .all_of
            .iter()
            .chain(&clauses.any_of)
            .filter(|q| q.matches(tags))
            .find_map(|q| q.first_held(tags))
    }

    /// A tag `tags` holds that a `none` clause forbids, for a query
    /// `tags` does not meet with nothing missing (see
    /// [`first_missing`](Self::first_missing)): the first of its `none`
    /// held, one that makes a `none_of` query match, or one from a nested
    /// query that fails.
    pub(crate) fn first_forbidden(&self, tags: &TagSet) -> Option<Tag> {
        let clauses = self.clauses.as_ref()?;
        if let Some(held) = clauses.none.iter().find(|&t| tags.has(t)) {
            return Some(held);
        }
        if let Some(held) = clauses
            .none_of
            .iter()
            .filter(|q| q.matches(tags))
            .find_map(|q| q.first_held(tags))
        {
            return Some(held);
        }
        clauses
            .all_of
            .iter()
            .chain(&clauses.any_of)
            .filter(|q| !q.matches(tags))
            .find_map(|q| q.first_forbidden(tags))
    }

    /// Evaluates the query against `tags`.
    #[inline]
    pub fn matches(&self, tags: &TagSet) -> bool {
        self.clauses.as_ref().is_none_or(|c| c.matches(tags))
    }

    /// Evaluates the query against the tags `has` says are present
    /// (parent-aware, as [`TagSet::has`] answers): for a set that is not
    /// held as a [`TagSet`], such as an entity's owned tags less those an
    /// ended effect still holds. Agrees with [`matches`](Self::matches) on
    /// `|t| set.has(t)`.
    pub fn matches_by(&self, has: &dyn Fn(Tag) -> bool) -> bool {
        self.clauses.as_ref().is_none_or(|c| c.matches_by(has))
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
        Clauses {
            all: set(&self.all, errors),
            any: set(&self.any, errors),
            none: set(&self.none, errors),
            all_of: nested(&self.all_of, errors),
            any_of: nested(&self.any_of, errors),
            none_of: nested(&self.none_of, errors),
        }
        .into()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_that_states_nothing_is_the_empty_query() {
        let nothing = TagQuery::new()
            .require_all([])
            .require_any([])
            .forbid(std::iter::empty());
        assert!(nothing.is_empty());
        assert_eq!(nothing, TagQuery::new());
        assert!(nothing.matches(&TagSet::new()));
        // A sub-query is a clause, even an empty one (it matches anything).
        let nested = TagQuery::new().and(TagQuery::new());
        assert!(!nested.is_empty());
        assert!(nested.matches(&TagSet::new()));
    }

    /// A failed requirement that misses nothing names the held tag that
    /// fails it: a `none` tag, or one making a `none_of` query match.
    #[test]
    fn a_query_names_the_held_tag_that_fails_it() {
        let (bow, disarmed, stunned) = (Tag::leaf(1), Tag::leaf(2), Tag::leaf(3));
        let set = |tags: &[Tag]| tags.iter().copied().collect::<TagSet>();
        let armed = TagQuery::new().require_all([bow]).forbid([disarmed]);
        assert_eq!(
            armed.first_forbidden(&set(&[bow, disarmed])),
            Some(disarmed)
        );
        let calm = TagQuery::new().and_not(TagQuery::new().require_any([stunned]));
        assert!(!calm.matches(&set(&[stunned])));
        assert_eq!(calm.first_missing(&set(&[stunned])), None);
        assert_eq!(calm.first_forbidden(&set(&[stunned])), Some(stunned));
    }

    /// A refusal names what refused: the required tag missing (not a
    /// forbidden one, not an alternative already met), and the held tag
    /// that made a blocking query match (none when only an absence did).
    #[test]
    fn a_query_names_the_tag_it_misses_or_the_one_that_makes_it_match() {
        let (bow, disarmed, stance_a, stance_b, silenced) = (
            Tag::leaf(1),
            Tag::leaf(2),
            Tag::leaf(3),
            Tag::leaf(4),
            Tag::leaf(5),
        );
        let set = |tags: &[Tag]| tags.iter().copied().collect::<TagSet>();
        let armed = TagQuery::new().require_all([bow]).forbid([disarmed]);
        assert_eq!(armed.first_missing(&set(&[])), Some(bow));
        assert_eq!(
            armed.first_missing(&set(&[bow, disarmed])),
            None,
            "forbidden, not missing"
        );
        let stanced = TagQuery::new()
            .require_any([stance_a, stance_b])
            .forbid([silenced]);
        assert_eq!(stanced.first_missing(&set(&[stance_a, silenced])), None);
        assert_eq!(stanced.first_missing(&set(&[])), Some(stance_a));
        let nested = TagQuery::new().and(TagQuery::new().require_all([bow]));
        assert_eq!(nested.first_missing(&set(&[])), Some(bow));

        let blocking = TagQuery::new().require_any([silenced, disarmed]);
        assert_eq!(blocking.first_held(&set(&[bow, silenced])), Some(silenced));
        let by_absence = TagQuery::new().forbid([bow]);
        assert_eq!(by_absence.first_held(&set(&[silenced])), None);
    }

    /// Asked tag by tag, a query answers as it does on the set: every
    /// clause, nested, parent-aware (a parent and two children, a leaf).
    #[test]
    fn a_query_asked_tag_by_tag_answers_as_on_the_set() {
        let parent = Tag::from_parts(1, 4);
        let (child, other_child, leaf) = (Tag::leaf(2), Tag::leaf(3), Tag::leaf(5));
        let queries = [
            TagQuery::new(),
            TagQuery::new().require_all([parent]),
            TagQuery::new().require_all([child, leaf]),
            TagQuery::new().require_any([other_child, leaf]),
            TagQuery::new().forbid([parent]),
            TagQuery::new()
                .require_any([child])
                .or(TagQuery::new().forbid([leaf])),
            TagQuery::new().and(TagQuery::new().require_all([parent]).forbid([leaf])),
        ];
        let sets: Vec<TagSet> = [
            vec![],
            vec![child],
            vec![other_child, leaf],
            vec![parent],
            vec![child, other_child, leaf],
        ]
        .into_iter()
        .map(|tags| tags.into_iter().collect())
        .collect();
        for query in &queries {
            for set in &sets {
                assert_eq!(
                    query.matches_by(&|t| set.has(t)),
                    query.matches(set),
                    "{query:?} on {set:?}"
                );
            }
        }
    }

    /// The saved form is the one the query had when its six clauses were
    /// its fields (written out here), so saves made before read back.
    #[test]
    fn a_query_is_saved_as_its_clauses_and_read_back_equal() {
        let query = TagQuery::new()
            .require_all([Tag::leaf(1)])
            .forbid([Tag::leaf(3)])
            .or(TagQuery::new().require_any([Tag::leaf(5)]));
        const EMPTY_SET: &str = "(bits:[],tags:[])";
        let text = ron::to_string(&query).unwrap();
        assert_eq!(
            text,
            format!(
                "(all:(bits:[2],tags:[(id:1,end:2)]),any:{EMPTY_SET},\
                 none:(bits:[8],tags:[(id:3,end:4)]),all_of:[],\
                 any_of:[(all:{EMPTY_SET},any:(bits:[32],tags:[(id:5,end:6)]),\
                 none:{EMPTY_SET},all_of:[],any_of:[],none_of:[])],none_of:[])"
            )
        );
        assert_eq!(ron::from_str::<TagQuery>(&text).unwrap(), query);
        // The empty query is saved as six empty clauses and read back empty.
        let empty = ron::to_string(&TagQuery::new()).unwrap();
        assert_eq!(
            empty,
            format!(
                "(all:{EMPTY_SET},any:{EMPTY_SET},none:{EMPTY_SET},\
                 all_of:[],any_of:[],none_of:[])"
            )
        );
        assert!(ron::from_str::<TagQuery>(&empty).unwrap().is_empty());
        let held: TagSet = [Tag::leaf(1), Tag::leaf(5)].into_iter().collect();
        assert!(query.matches(&held));
        let forbidden: TagSet = [Tag::leaf(1), Tag::leaf(3), Tag::leaf(5)]
            .into_iter()
            .collect();
        assert!(!query.matches(&forbidden));
    }
}
