//! [`Breakdown`]: "where does my 340 % come from?"

use std::fmt::{self, Write as _};

use super::formula;
use super::modifiers::{accumulate, ModEntry, ModOp, SourceId};
use super::schema::{AttributeId, AttributeMode, AttributeSchema};

/// One source's contribution to one accumulator.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Contribution {
    /// Who applied it (an effect, or a caller's label).
    pub source: SourceId,
    /// Its magnitude: units for `Flat`, a fraction for `Points`, a factor for
    /// `Mult`, the replacement for `Override`.
    pub value: f64,
}

/// The computation of one attribute's current value, step by step.
///
/// Built on request by [`Attributes::breakdown`](crate::Attributes::breakdown)
/// for UI and debugging; never used on the gameplay path. Contributions are
/// listed in the canonical order the formula sums them in.
#[derive(Clone, Debug, PartialEq)]
pub struct Breakdown {
    /// The attribute.
    pub attribute: AttributeId,
    /// Its name.
    pub name: String,
    /// Its mode.
    pub mode: AttributeMode,
    /// Base value.
    pub base: f64,
    /// `Flat` contributions.
    pub flat: Vec<Contribution>,
    /// `Points` contributions.
    pub points: Vec<Contribution>,
    /// `Mult` contributions.
    pub mult: Vec<Contribution>,
    /// `Override` contributions, oldest first; the last one wins.
    pub overrides: Vec<Contribution>,
    /// Σ flat.
    pub flat_sum: f64,
    /// Σ points before the clamp.
    pub points_sum: f64,
    /// The points cap in effect (infinite when uncapped).
    pub points_cap: f64,
    /// Points actually applied, `points_sum` clamped to `[0, cap]`.
    pub points_applied: f64,
    /// `points_sum − points_applied`: positive when the cap ate bonus
    /// points, negative when a negative sum was ignored. Zero when every
    /// point counts.
    pub points_lost: f64,
    /// Π mult.
    pub mult_product: f64,
    /// The formula's result before bounds (the override, if any).
    pub unbounded: f64,
    /// The bounds in effect, `(lo, hi)`; infinite when absent.
    pub bounds: (f64, f64),
    /// The current value.
    pub value: f64,
}

impl Breakdown {
    pub(crate) fn new(
        schema: &AttributeSchema,
        attribute: AttributeId,
        base: f64,
        run: &[ModEntry],
        current: &[f64],
    ) -> Breakdown {
        let def = schema.def(attribute);
        let pick = |op: ModOp| -> Vec<Contribution> {
            run.iter()
                .filter(|e| e.op == op)
                .map(|e| Contribution {
                    source: e.source,
                    value: e.value,
                })
                .collect()
        };
        let acc = accumulate(run);
        let points_applied = formula::clamp_points(def, acc.points);
        let bounds = formula::bounds(def, current);
        let unbounded = formula::unbounded(def, base, &acc);
        Breakdown {
            attribute,
            name: def.name.clone(),
            mode: def.mode,
            base,
            flat: pick(ModOp::Flat),
            points: pick(ModOp::Points),
            mult: pick(ModOp::Mult),
            overrides: pick(ModOp::Override),
            flat_sum: acc.flat,
            points_sum: acc.points,
            points_cap: def.points_cap(),
            points_applied,
            points_lost: acc.points - points_applied,
            mult_product: acc.mult,
            unbounded,
            bounds,
            value: formula::clamp(unbounded, bounds),
        }
    }

    /// True when bonus points are lost to the cap: a bonus that silently
    /// does nothing, which the designer must see.
    pub fn cap_ate_points(&self) -> bool {
        self.points_lost > 0.0
    }

    /// A multi-line explanation; `name_of` turns sources into readable names.
    pub fn render(&self, name_of: impl Fn(SourceId) -> String) -> String {
        let mut out = String::new();
        let mode = match self.mode {
            AttributeMode::Direct => "Direct",
            AttributeMode::Interval => "Interval",
        };
        let _ = writeln!(out, "{} ({mode}) = {:.2}", self.name, self.value);
        let _ = writeln!(out, "  base      {:>10.2}", self.base);
        let mut section = |label: &str, items: &[Contribution], unit: &dyn Fn(f64) -> String| {
            for (i, c) in items.iter().enumerate() {
                let head = if i == 0 { label } else { "" };
                let _ = writeln!(
                    out,
                    "  {head:<9} {:>10}  {}",
                    unit(c.value),
                    name_of(c.source)
                );
            }
        };
        section("flat", &self.flat, &|v| format!("{v:+.2}"));
        section("points", &self.points, &|v| format!("{:+.2} pp", v * 100.0));
        section("mult", &self.mult, &|v| format!("×{v:.4}"));
        section("override", &self.overrides, &|v| format!("={v:.2}"));
        if !self.points.is_empty() {
            let cap = if self.points_cap.is_finite() {
                format!("{:.2} pp", self.points_cap * 100.0)
            } else {
                "none".to_owned()
            };
            let _ = writeln!(
                out,
                "  points sum {:.2} pp, cap {cap}, applied {:.2} pp",
                self.points_sum * 100.0,
                self.points_applied * 100.0
            );
            if self.points_lost > 0.0 {
                let _ = writeln!(
                    out,
                    "  WARNING: {:.2} pp of bonus are lost to the cap and do nothing",
                    self.points_lost * 100.0
                );
            } else if self.points_lost < 0.0 {
                let _ = writeln!(
                    out,
                    "  WARNING: the points sum is negative; {:.2} pp are ignored (use Mult below 1 for a penalty)",
                    -self.points_lost * 100.0
                );
            }
        }
        if let Some(last) = self.overrides.last() {
            let _ = writeln!(
                out,
                "  override from {} replaces the formula",
                name_of(last.source)
            );
        } else {
            let (sign, op) = match self.mode {
                AttributeMode::Direct => ('+', '×'),
                AttributeMode::Interval => ('−', '÷'),
            };
            let _ = writeln!(
                out,
                "  formula   ({:.2} + {:.2}) × (1 {sign} {:.4}) {op} {:.4} = {:.4}",
                self.base, self.flat_sum, self.points_applied, self.mult_product, self.unbounded
            );
        }
        let (lo, hi) = self.bounds;
        if self.value != self.unbounded {
            let _ = writeln!(
                out,
                "  bounds    [{lo}, {hi}] clamp it to {:.4}",
                self.value
            );
        }
        out
    }
}

impl fmt::Display for Breakdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(|source| format!("source #{}", source.0)))
    }
}
