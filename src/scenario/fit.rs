//! [`ScenarioError`]: why a scenario cannot run over a catalog, and the
//! check that a [`Scenario`] names only what its fighter list and the
//! catalog hold.

use std::fmt;

use super::compile::{Action, CombatantSpec, Scenario};
use crate::catalog::Catalog;
use crate::combat::{CombatDefs, ItemId, MissingDefinition, SpellId};
use crate::tags::Tag;

/// Why [`ScenarioRun::new`](super::ScenarioRun::new) cannot run a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioError {
    /// The catalog lacks a definition the combat layer needs.
    Missing(MissingDefinition),
    /// The scenario names a fighter it does not list, or a kind, item,
    /// spell, tag, attribute or ability the catalog does not define: one
    /// built or edited in code, or compiled against other content. (One
    /// parsed from text over this catalog always fits.)
    Unfit(String),
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Missing(missing) => missing.fmt(f),
            ScenarioError::Unfit(why) => write!(f, "the scenario does not fit the catalog: {why}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

impl From<MissingDefinition> for ScenarioError {
    fn from(missing: MissingDefinition) -> Self {
        ScenarioError::Missing(missing)
    }
}

/// What one check looks at: the catalog, its combat definitions and the
/// number of fighters.
struct Fit<'a> {
    catalog: &'a Catalog,
    defs: &'a CombatDefs,
    fighters: usize,
}

impl Fit<'_> {
    fn fighter(&self, who: usize) -> Result<(), String> {
        if who < self.fighters {
            Ok(())
        } else {
            Err(format!("fighter #{who}, of {} listed", self.fighters))
        }
    }

    fn item(&self, item: ItemId) -> Result<(), String> {
        match self.defs.item(item) {
            Some(_) => Ok(()),
            None => Err(format!("item #{}", item.index())),
        }
    }

    fn spell(&self, spell: SpellId) -> Result<(), String> {
        match self.defs.spell(spell) {
            Some(_) => Ok(()),
            None => Err(format!("spell #{}", spell.index())),
        }
    }

    fn tag(&self, tag: Tag) -> Result<(), String> {
        if self.catalog.tags().knows(tag) {
            Ok(())
        } else {
            Err(format!("tag #{}", tag.index()))
        }
    }

    fn combatant(&self, spec: &CombatantSpec) -> Result<(), String> {
        let at = |why: String| format!("fighter `{}`: {why}", spec.name);
        if spec.kind.index() >= self.defs.kind_ids().len() {
            return Err(at(format!("kind #{}", spec.kind.index())));
        }
        for &(item, _) in spec.equipment.iter().chain(&spec.inventory) {
            self.item(item).map_err(at)?;
        }
        if let Some(book) = spec.spellbook {
            if !self.defs.is_known_book(book) {
                return Err(at(format!("spellbook tag #{}", book.index())));
            }
        }
        if let Some(spell) = spec.autocast {
            self.spell(spell).map_err(at)?;
        }
        for &(attribute, _) in &spec.attributes {
            if self.catalog.attributes().try_def(attribute).is_none() {
                return Err(at(format!("attribute #{}", attribute.index())));
            }
        }
        for &ability in &spec.abilities {
            if self.catalog.abilities().try_def(ability).is_none() {
                return Err(at(format!("ability #{}", ability.index())));
            }
        }
        Ok(())
    }

    fn action(&self, action: &Action) -> Result<(), String> {
        match *action {
            Action::Engage(a, b) => self.fighter(a).and(self.fighter(b)),
            Action::Cast(a, b, spell) => {
                self.fighter(a).and(self.fighter(b)).and(self.spell(spell))
            }
            Action::SetStyle(a, tag)
            | Action::Event(a, tag)
            | Action::OpenModal(a, tag)
            | Action::CloseModal(a, tag) => self.fighter(a).and(self.tag(tag)),
            Action::Autocast(a, spell) => {
                self.fighter(a).and(spell.map_or(Ok(()), |s| self.spell(s)))
            }
            Action::Eat(a, item) | Action::Equip(a, item) => self.fighter(a).and(self.item(item)),
            Action::Move(a, to) if !(to.x.is_finite() && to.y.is_finite()) => {
                self.fighter(a)?;
                Err(format!("a move to ({}, {}), not a place", to.x, to.y))
            }
            Action::Disengage(a)
            | Action::Move(a, _)
            | Action::Stun(a, _)
            | Action::Save(a)
            | Action::Despawn(a) => self.fighter(a),
        }
    }
}

impl Scenario {
    /// Checks that every fighter an input names is listed, and that every
    /// kind, item, spell, tag, attribute and ability the scenario names is
    /// `catalog`'s (`defs` being its combat definitions).
    pub(crate) fn check_fits(
        &self,
        catalog: &Catalog,
        defs: &CombatDefs,
    ) -> Result<(), ScenarioError> {
        let fit = Fit {
            catalog,
            defs,
            fighters: self.combatants.len(),
        };
        for spec in &self.combatants {
            fit.combatant(spec).map_err(ScenarioError::Unfit)?;
        }
        for (at, action) in &self.timeline {
            fit.action(action)
                .map_err(|why| ScenarioError::Unfit(format!("the input at {at} s: {why}")))?;
        }
        Ok(())
    }
}
