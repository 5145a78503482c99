//! Derived attributes: linear rules `Target = Base + Σ Source × Coefficient`,
//! compiled into a fixed evaluation order with precomputed dependents.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::data::{AttributeData, DerivedProfileData};
use super::schema::{AttributeDef, AttributeId, Bound};
use crate::diagnostics::{LoadErrors, SourceFile};
use crate::names::NameTable;

/// The most rules a profile may hold.
pub const MAX_DERIVED_RULES: usize = 8;
/// The most source terms one rule may hold.
pub const MAX_DERIVED_TERMS: usize = 8;

pub(crate) const NO_PROFILE_NAME: &str = "(none)";
const NO_RULE: u8 = u8::MAX;

/// Index of a derived-attribute profile in its schema. Every entity has one;
/// [`ProfileId::NONE`] has no rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProfileId(u16);

impl ProfileId {
    /// The profile with no rules.
    pub const NONE: ProfileId = ProfileId(0);

    pub(crate) const fn new(index: usize) -> Self {
        Self(index as u16)
    }

    /// The dense index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Rule {
    target: AttributeId,
    base: f64,
    terms: SmallVec<[(AttributeId, f64); MAX_DERIVED_TERMS]>,
}

impl Rule {
    /// The rule's value from current attribute values; non-finite when a
    /// source is (the caller then leaves the target unchanged).
    #[inline]
    fn evaluate(&self, current: &[f64]) -> f64 {
        let mut value = self.base;
        for &(source, coefficient) in &self.terms {
            value += current[source.index()] * coefficient;
        }
        value
    }
}

/// A compiled profile: rules in evaluation order, and for every attribute
/// the attributes whose value depends on it (through a rule or a bound), in
/// an order where dependencies come first. Entities share it; per-entity
/// evaluation walks these fixed lists and never searches a graph.
#[derive(Clone, Debug)]
pub(crate) struct DerivedProfile {
    rules: Vec<Rule>,
    /// Per attribute: index into `rules` of the rule targeting it, or `NO_RULE`.
    rule_of: Vec<u8>,
    /// Per attribute: every transitive dependent, dependencies first.
    dependents: Vec<Box<[AttributeId]>>,
    /// Every attribute, dependencies first.
    order: Box<[AttributeId]>,
}

impl DerivedProfile {
    /// The rule-less profile: only attribute bounds create dependencies.
    pub(crate) fn none(defs: &[AttributeDef]) -> Self {
        let edges = bound_edges(defs);
        let order = topological_order(defs.len(), &edges, |a| a)
            .unwrap_or_else(|_| (0..defs.len()).collect());
        Self::finish(Vec::new(), defs.len(), &edges, &order)
    }

    fn finish(rules: Vec<Rule>, count: usize, edges: &[Vec<usize>], order: &[usize]) -> Self {
        let mut position = vec![0; count];
        for (at, &node) in order.iter().enumerate() {
            position[node] = at;
        }
        let mut rule_of = vec![NO_RULE; count];
        let mut sorted_rules = rules;
        sorted_rules.sort_by_key(|rule| position[rule.target.index()]);
        for (index, rule) in sorted_rules.iter().enumerate() {
            rule_of[rule.target.index()] = index as u8;
        }
        let dependents = (0..count)
            .map(|node| {
                let mut reached = reachable(node, edges);
                reached.sort_by_key(|&n| position[n]);
                reached.into_iter().map(AttributeId::new).collect()
            })
            .collect();
        DerivedProfile {
            rules: sorted_rules,
            rule_of,
            dependents,
            order: order.iter().copied().map(AttributeId::new).collect(),
        }
    }

    /// Compiles one profile; `None` (with errors pushed) if it is invalid.
    pub(crate) fn compile(
        file: &SourceFile,
        data: &DerivedProfileData,
        defs: &[AttributeDef],
        names: &NameTable,
        errors: &mut LoadErrors,
    ) -> Option<Self> {
        let profile = &data.name;
        let before = errors.errors().count();
        let at = |needle: &str, message: String| file.error_after(profile, needle, message);
        if data.rules.is_empty() {
            errors.push(at(
                profile,
                format!("derived profile `{profile}` has no rules"),
            ));
        }
        if data.rules.len() > MAX_DERIVED_RULES {
            errors.push(at(
                profile,
                format!(
                    "derived profile `{profile}` has {} rules; at most {MAX_DERIVED_RULES} are allowed",
                    data.rules.len()
                ),
            ));
        }
        let mut rules = Vec::with_capacity(data.rules.len());
        let mut target_rule: Vec<Option<usize>> = vec![None; defs.len()];
        for (index, rule) in data.rules.iter().enumerate() {
            let label = format!("rule {} (target `{}`)", index + 1, rule.target);
            let resolve = |name: &str, errors: &mut LoadErrors| match names.get(name) {
                Some(id) => Some(AttributeId::new(id)),
                None => {
                    let mut error = names
                        .resolve_in(name, &file.name, &file.text)
                        .expect_err("the name is unknown");
                    error.message =
                        format!("derived profile `{profile}`, {label}: unknown attribute `{name}`");
                    errors.push(error.at_text_after(&file.text, profile, name));
                    None
                }
            };
            let target = resolve(&rule.target, errors);
            if let Some(target) = target {
                if let Some(first) = target_rule[target.index()] {
                    errors.push(at(
                        &rule.target,
                        format!(
                            "derived profile `{profile}`, {label}: attribute `{}` is already the target of rule {}",
                            rule.target,
                            first + 1
                        ),
                    ));
                }
                target_rule[target.index()] = Some(index);
                if defs[target.index()].meta {
                    errors.push(at(
                        &rule.target,
                        format!(
                            "derived profile `{profile}`, {label}: attribute `{}` is a meta attribute, which holds nothing between executions, so no rule can own its base",
                            rule.target
                        ),
                    ));
                }
                if defs[target.index()].starts_at.is_some() {
                    errors.push(at(
                        &rule.target,
                        format!(
                            "derived profile `{profile}`, {label}: attribute `{}` has a starting value (`starts_at`), so no rule can own its base",
                            rule.target
                        ),
                    ));
                }
            }
            if !rule.base.is_finite() {
                errors.push(at(
                    &rule.target,
                    format!(
                        "derived profile `{profile}`, {label}: base must be finite, found {}",
                        rule.base
                    ),
                ));
            }
            if rule.terms.len() > MAX_DERIVED_TERMS {
                errors.push(at(
                    &rule.target,
                    format!(
                        "derived profile `{profile}`, {label}: {} terms; at most {MAX_DERIVED_TERMS} are allowed",
                        rule.terms.len()
                    ),
                ));
            }
            let mut terms = SmallVec::new();
            for (source, coefficient) in &rule.terms {
                if !coefficient.is_finite() {
                    errors.push(at(
                        source,
                        format!("derived profile `{profile}`, {label}: coefficient of `{source}` must be finite, found {coefficient}"),
                    ));
                }
                if let Some(source) = resolve(source, errors) {
                    terms.push((source, *coefficient));
                }
            }
            if let Some(target) = target {
                rules.push(Rule {
                    target,
                    base: rule.base,
                    terms,
                });
            }
        }
        if errors.errors().count() > before {
            return None;
        }

        let mut edges = bound_edges(defs);
        for rule in &rules {
            for &(source, _) in &rule.terms {
                edges[source.index()].push(rule.target.index());
            }
        }
        // Ready rule targets go in authored order; other attributes after.
        let priority = |node: usize| target_rule[node].unwrap_or(MAX_DERIVED_RULES + node);
        match topological_order(defs.len(), &edges, priority) {
            Ok(order) => Some(Self::finish(rules, defs.len(), &edges, &order)),
            Err(remaining) => {
                let cycle = find_cycle(&remaining, &edges);
                let path: Vec<&str> = cycle.iter().map(|&n| defs[n].name.as_str()).collect();
                let rules_on_cycle: Vec<String> = cycle[..cycle.len() - 1]
                    .iter()
                    .filter_map(|&n| {
                        target_rule[n].map(|r| format!("rule {} `{}`", r + 1, defs[n].name))
                    })
                    .collect();
                errors.push(at(
                    path[0],
                    format!(
                        "derived profile `{profile}`: rules form a cycle {} ({})",
                        path.join(" → "),
                        rules_on_cycle.join(", ")
                    ),
                ));
                None
            }
        }
    }

    /// The rule targeting `attribute`, evaluated, if there is one.
    #[inline]
    pub(crate) fn evaluate_rule(&self, attribute: AttributeId, current: &[f64]) -> Option<f64> {
        let rule = self.rule_of[attribute.index()];
        (rule != NO_RULE).then(|| self.rules[rule as usize].evaluate(current))
    }

    /// True when a rule of this profile owns `attribute`'s base.
    pub(crate) fn owns(&self, attribute: AttributeId) -> bool {
        self.rule_of[attribute.index()] != NO_RULE
    }

    /// Attributes whose value depends on `attribute`, dependencies first.
    #[inline]
    pub(crate) fn dependents(&self, attribute: AttributeId) -> &[AttributeId] {
        &self.dependents[attribute.index()]
    }

    /// Every attribute, dependencies first.
    pub(crate) fn order(&self) -> &[AttributeId] {
        &self.order
    }

    pub(crate) fn rules(&self) -> impl Iterator<Item = (AttributeId, f64, &[(AttributeId, f64)])> {
        self.rules
            .iter()
            .map(|r| (r.target, r.base, r.terms.as_slice()))
    }
}

/// Rejects attribute bounds that depend on each other in a circle
/// (`A ≤ B`, `B ≤ A`). Returns `false` after reporting one.
pub(crate) fn check_bound_cycles(
    defs: &[AttributeDef],
    files: &[(&SourceFile, &AttributeData)],
    errors: &mut LoadErrors,
) -> bool {
    let edges = bound_edges(defs);
    match topological_order(defs.len(), &edges, |a| a) {
        Ok(_) => true,
        Err(remaining) => {
            let cycle = find_cycle(&remaining, &edges);
            let path: Vec<&str> = cycle.iter().map(|&n| defs[n].name.as_str()).collect();
            let (file, _) = files[cycle[0]];
            errors.push(file.error_at(
                path[0],
                format!("attribute bounds form a cycle {}", path.join(" → ")),
            ));
            false
        }
    }
}

/// Edges `dependency → dependent` from attribute bounds.
fn bound_edges(defs: &[AttributeDef]) -> Vec<Vec<usize>> {
    let mut edges = vec![Vec::new(); defs.len()];
    for (index, def) in defs.iter().enumerate() {
        for bound in [def.min, def.max].into_iter().flatten() {
            if let Bound::Attribute(other) = bound {
                edges[other.index()].push(index);
            }
        }
    }
    edges
}

/// Kahn's algorithm, taking the ready node with the lowest `priority` each
/// step so the order is deterministic. `Err` holds the nodes left on or
/// behind a cycle.
fn topological_order(
    count: usize,
    edges: &[Vec<usize>],
    priority: impl Fn(usize) -> usize,
) -> Result<Vec<usize>, Vec<usize>> {
    let mut incoming = vec![0usize; count];
    for targets in edges {
        for &t in targets {
            incoming[t] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..count).filter(|&n| incoming[n] == 0).collect();
    let mut order = Vec::with_capacity(count);
    while let Some(at) = (0..ready.len()).min_by_key(|&i| priority(ready[i])) {
        let node = ready.swap_remove(at);
        order.push(node);
        for &t in &edges[node] {
            incoming[t] -= 1;
            if incoming[t] == 0 {
                ready.push(t);
            }
        }
    }
    if order.len() == count {
        Ok(order)
    } else {
        Err((0..count).filter(|&n| incoming[n] > 0).collect())
    }
}

/// A cycle among `remaining` (nodes Kahn could not order), as a path that
/// ends where it starts.
///
/// Every remaining node still has an incoming edge from another remaining
/// node, so walking edges *backwards* inside the set never dead-ends and
/// must revisit a node: that loop is a cycle.
fn find_cycle(remaining: &[usize], edges: &[Vec<usize>]) -> Vec<usize> {
    let predecessor = |node: usize| {
        remaining
            .iter()
            .copied()
            .find(|&m| edges[m].contains(&node))
            .expect("a node Kahn could not order has a remaining predecessor")
    };
    let mut walk = vec![remaining[0]];
    loop {
        let previous = predecessor(*walk.last().expect("walk is never empty"));
        if let Some(at) = walk.iter().position(|&n| n == previous) {
            // walk[at..] followed backwards is the cycle; reverse it to read
            // forwards, and start at the lowest node so the report is stable.
            let mut cycle: Vec<usize> = walk[at..].iter().rev().copied().collect();
            let lowest = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
            cycle.rotate_left(lowest);
            cycle.push(cycle[0]);
            return cycle;
        }
        walk.push(previous);
    }
}

/// Every node reachable from `start` (excluding `start` unless on a cycle).
fn reachable(start: usize, edges: &[Vec<usize>]) -> Vec<usize> {
    let mut seen = vec![false; edges.len()];
    let mut stack = edges[start].clone();
    let mut out = Vec::new();
    while let Some(node) = stack.pop() {
        if !seen[node] {
            seen[node] = true;
            out.push(node);
            stack.extend(&edges[node]);
        }
    }
    out
}
