//! [`ScenarioError`]: why a scenario cannot run over a catalog, and the
//! check that a [`Scenario`] names only what its fighter list and the
//! catalog hold.

use std::fmt;

use super::compile::{Action, CombatantSpec, Scenario};
use crate::catalog::Catalog;
use crate::combat::{
    native, CombatDefs, ItemId, MissingDefinition, Skill, Skills, SpellId, MAX_LEVEL,
};
use crate::tags::{Tag, TagRegistry};
use crate::time::SimDuration;

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

impl CombatantSpec {
    /// The skills the fighter spawns with.
    pub(crate) fn skills(&self) -> Skills {
        skills_at(self.level, &self.levels)
    }
}

/// Skills with every skill at `level` (or each at its default), then
/// `levels` one by one.
pub(super) fn skills_at(level: Option<u32>, levels: &[(Skill, u32)]) -> Skills {
    let mut skills = level.map_or_else(Skills::default, Skills::all_at);
    for &(skill, level) in levels {
        skills.set_level(skill, level);
    }
    skills
}

/// Why `level` is no skill level. (The skills would clamp it, silently.)
pub(super) fn level_problem(level: u32) -> Option<String> {
    (!(1..=MAX_LEVEL).contains(&level))
        .then(|| format!("level {level} is not a skill level (1 to {MAX_LEVEL})"))
}

/// Why `item` cannot be worn `quantity` times by a fighter with `skills`
/// who already wears what `slots` lists (which gains its slot when it can
/// be). Worn directly, as a spawn puts it on, it would otherwise skip the
/// rules [`equip`](crate::combat::equip) keeps.
pub(super) fn worn_problem(
    defs: &CombatDefs,
    tags: &TagRegistry,
    skills: &Skills,
    slots: &mut Vec<(Tag, ItemId)>,
    item: ItemId,
    quantity: u32,
) -> Option<String> {
    let def = defs.item(item)?;
    let name = &def.name;
    let Some(slot) = def.slot else {
        return Some(format!(
            "`{name}` cannot be worn (it has no slot); carry it in `inventory`"
        ));
    };
    if quantity == 0 {
        return Some(format!("`{name}` is worn 0 times; wear at least one"));
    }
    if quantity > 1 && slot != defs.tags[native::ITEM_SLOT_AMMO] {
        return Some(format!(
            "`{name}` is worn {quantity} times; only ammunition stacks in a slot"
        ));
    }
    if let Some(&(_, other)) = slots.iter().find(|(taken, _)| *taken == slot) {
        let other = defs.item(other).map_or("?", |d| d.name.as_str());
        return Some(format!(
            "`{name}` goes in the slot `{other}` is worn in; carry one of them in `inventory`"
        ));
    }
    if let Some((skill, needed)) = def.unmet_requirement(skills) {
        return Some(format!(
            "`{name}` needs {} level {needed} (the fighter has {})",
            tags.name(skill.tag(&defs.tags)),
            skills.level(skill)
        ));
    }
    slots.push((slot, item));
    None
}

/// Why `tag` is no modal a fighter can open or close: one under
/// `Action.Modal` (any other loose tag, a stun's, would be added or taken
/// away instead).
pub(super) fn modal_problem(defs: &CombatDefs, tags: &TagRegistry, tag: Tag) -> Option<String> {
    let modal = defs.tags[native::ACTION_MODAL];
    (tag == modal || !tag.matches(modal)).then(|| {
        format!(
            "`{}` is not a modal (one under `Action.Modal`)",
            tags.name(tag)
        )
    })
}

/// Why a stun of `seconds` cannot be applied: a stun's length is a
/// duration, at least zero and within what the clock counts (a longer one
/// would fail when applied, unseen).
pub(super) fn stun_problem(seconds: f64) -> Option<String> {
    SimDuration::from_secs_f64(seconds).err().map(|_| {
        format!(
            "stun seconds must be a duration from 0 to {:.0}, found {seconds}",
            SimDuration::MAX.as_secs_f64()
        )
    })
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
        if spec.name.is_empty() {
            return Err("a fighter with no name".into());
        }
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
        for level in spec
            .level
            .into_iter()
            .chain(spec.levels.iter().map(|&(_, l)| l))
        {
            if let Some(why) = level_problem(level) {
                return Err(at(why));
            }
        }
        let skills = spec.skills();
        let mut slots = Vec::new();
        for &(item, quantity) in &spec.equipment {
            let tags = self.catalog.tags();
            if let Some(why) = worn_problem(self.defs, tags, &skills, &mut slots, item, quantity) {
                return Err(at(why));
            }
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
            Action::OpenModal(a, tag) | Action::CloseModal(a, tag) => {
                self.fighter(a).and(self.tag(tag))?;
                modal_problem(self.defs, self.catalog.tags(), tag).map_or(Ok(()), Err)
            }
            Action::SetStyle(a, tag) | Action::Event(a, tag) => self.fighter(a).and(self.tag(tag)),
            Action::Autocast(a, spell) => {
                self.fighter(a).and(spell.map_or(Ok(()), |s| self.spell(s)))
            }
            Action::Eat(a, item) | Action::Equip(a, item) => self.fighter(a).and(self.item(item)),
            Action::Move(a, to) if !(to.x.is_finite() && to.y.is_finite()) => {
                self.fighter(a)?;
                Err(format!("a move to ({}, {}), not a place", to.x, to.y))
            }
            Action::Stun(a, seconds) => {
                self.fighter(a)?;
                stun_problem(seconds).map_or(Ok(()), Err)
            }
            Action::Disengage(a) | Action::Move(a, _) | Action::Save(a) | Action::Despawn(a) => {
                self.fighter(a)
            }
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
