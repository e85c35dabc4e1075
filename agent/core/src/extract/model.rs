//! The learned block scorer: gradient-boosted regression trees over the rows
//! of `features`, shipped as data (`rules/extractor.json`, made by
//! `bench/train_extractor.py`).
//!
//! Trees are flat arrays (feature, threshold, left, right, value), so scoring
//! a block is a few hundred comparisons and no allocation: linear in the page.
//! The file names its features; a file trained on another feature list is
//! refused rather than silently misread.

use super::trees::{Ensemble, Tree};
use super::{context, features};
use serde::Deserialize;

/// The shipped model.
pub const SHIPPED: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/extractor.json"
));

#[derive(Debug, Deserialize)]
struct File {
    format: u32,
    features: Vec<String>,
    /// Raw score before the trees (log-odds of the prior).
    bias: f32,
    /// Blocks whose probability is at least this are content.
    threshold: f32,
    /// On a page whose most likely block is below `threshold / relative`,
    /// blocks at least `relative` times that block's probability are content.
    #[serde(default)]
    relative: Option<f32>,
    /// When present, the page's cut follows the page (see `ExpectedF1`) and
    /// `threshold` and `relative` serve only blocks judged alone.
    #[serde(default)]
    expected_f1: Option<ExpectedF1>,
    /// The first stage's early exit: see `Settle`.
    #[serde(default)]
    settle: Option<Settle>,
    /// The cut for pruning the plateau's choice (`extract.scorer = "pruned"`),
    /// chosen by the training script on those blocks alone.
    #[serde(default)]
    prune: Option<Cut>,
    trees: Vec<Tree>,
    /// The second stage (see `extract::context`): trees over the first
    /// stage's row followed by the context row. When present, the page's cut
    /// (`threshold`, `relative`, `expected_f1`) applies to its scores; the
    /// prune cut always reads the first stage alone.
    #[serde(default)]
    second: Option<Stage>,
}

/// The first stage's early exit: a block whose raw score after its first
/// `trees` trees is already past `margin` either way (a probability below
/// `1 / (1 + e^margin)` or above its complement) keeps that score, and only
/// the others walk the rest of the trees. Most of a page's blocks — menus,
/// footers, the body of an article — are settled long before the last
/// tree; the second stage is trained on the probabilities so made
/// (`bench/train_extractor.py`), so it meets what it learnt from.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq)]
struct Settle {
    trees: usize,
    margin: f32,
}

/// A second stage as the file gives it.
#[derive(Debug, Deserialize)]
struct Stage {
    /// The context features after the first stage's (`context::NAMES`).
    features: Vec<String>,
    bias: f32,
    trees: Vec<Tree>,
}

/// The prune cut: a probability cut and its page-relative companion (see
/// `File::relative`), on the sum of the first `trees` trees (all if absent),
/// or on trees of its own (`model`).
#[derive(Debug, Deserialize)]
struct Cut {
    threshold: f32,
    #[serde(default)]
    relative: Option<f32>,
    #[serde(default)]
    expected_f1: Option<ExpectedF1>,
    #[serde(default)]
    trees: Option<usize>,
    /// Trees of the prune's own, over the first stage's rows: trained on
    /// the plateau's blocks alone (the only blocks it is asked about), a few
    /// shallow trees judge them as well as a hundred of the first stage's.
    #[serde(default)]
    model: Option<PruneTrees>,
}

/// `Cut::model`.
#[derive(Debug, Deserialize)]
struct PruneTrees {
    bias: f32,
    trees: Vec<Tree>,
}

/// How the plateau's blocks are pruned: the rule, and the trees that score
/// them (the prune's own, or the first stage's first `trees`).
#[derive(Debug)]
struct Prune {
    rule: Rule,
    trees: usize,
    own: Option<Ensemble>,
}

/// A cut that follows the page: `gamma` times the best F1 the page can
/// expect, within `[floor, ceiling]`. Taking each block's probability as the
/// chance its words are content, the expected F1 of keeping the blocks above
/// a cut is about `2 * kept content / (kept + all content)` (Jansche 2007's
/// ratio of expectations), and the cut that maximises it is half the F1 it
/// reaches. So a page whose blocks are all uncertain — a grid of product
/// cards — keeps more of them, and a page with a sure article body keeps
/// less of what surrounds it; `gamma` and the bounds correct for a model
/// whose probabilities are not perfectly calibrated, and are chosen by
/// `bench/train_extractor.py` on held-out folds.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq)]
struct ExpectedF1 {
    gamma: f32,
    floor: f32,
    ceiling: f32,
}

impl ExpectedF1 {
    fn valid(&self) -> bool {
        self.gamma > 0.0 && 0.0 <= self.floor && self.floor <= self.ceiling && self.ceiling <= 1.0
    }
}

/// How a page's cut is set.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rule {
    /// The raw-score cut, lowered on an unsure page (see `File::relative`).
    Fixed {
        cut: f32,
        relative: Option<f32>,
    },
    ExpectedF1(ExpectedF1),
}

/// A loaded, checked model: one or two stages of trees (see `Ensemble`)
/// and the cuts.
#[derive(Debug)]
pub struct Model {
    first: Ensemble,
    /// The second stage, over `context::ROW`-long rows.
    second: Option<Ensemble>,
    /// The raw-score cut for a block judged alone: `logit(threshold)`.
    cut: f32,
    /// How a page's cut is set.
    rule: Rule,
    /// `File::prune`.
    prune: Option<Prune>,
    /// `File::settle`.
    settle: Option<Settle>,
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("extractor model: {0}")]
    Json(#[from] serde_json::Error),
    #[error("extractor model: format {0} (this build reads format 1)")]
    Format(u32),
    #[error("extractor model: trained on other features (expected {expected} named as in extract::features, got {got})")]
    Features { expected: usize, got: usize },
    #[error("extractor model: second stage trained on other context features (expected {expected} named as in extract::context, got {got})")]
    Context { expected: usize, got: usize },
    #[error("extractor model: tree {0} is malformed ({1})")]
    Tree(usize, &'static str),
    #[error("extractor model: tree {0} of the prune's own is malformed ({1})")]
    PruneTree(usize, &'static str),
    #[error("extractor model: expected_f1 needs gamma > 0 and 0 <= floor <= ceiling <= 1")]
    ExpectedF1,
    #[error("extractor model: settle needs trees > 0 and a margin > 0")]
    Settle,
}

impl Model {
    pub fn parse(json: &str) -> Result<Model, ModelError> {
        let file: File = serde_json::from_str(json)?;
        if file.format != 1 {
            return Err(ModelError::Format(file.format));
        }
        if file.features != features::names() {
            return Err(ModelError::Features {
                expected: features::N,
                got: file.features.len(),
            });
        }
        let rules = [
            file.expected_f1,
            file.prune.as_ref().and_then(|c| c.expected_f1),
        ];
        if rules.iter().flatten().any(|e| !e.valid()) {
            return Err(ModelError::ExpectedF1);
        }
        if file
            .settle
            .is_some_and(|e| e.trees == 0 || e.margin.is_nan() || e.margin <= 0.0)
        {
            return Err(ModelError::Settle);
        }
        let tree = |(i, why)| ModelError::Tree(i, why);
        let first = Ensemble::build(file.bias, &file.trees, features::N).map_err(tree)?;
        let second = match &file.second {
            None => None,
            Some(stage) => {
                if stage.features != context::NAMES {
                    return Err(ModelError::Context {
                        expected: context::N,
                        got: stage.features.len(),
                    });
                }
                Some(Ensemble::build(stage.bias, &stage.trees, context::ROW).map_err(tree)?)
            }
        };
        let cut = |p: f32| logit(p.clamp(1e-6, 1.0 - 1e-6));
        let rule = |threshold: f32, relative: Option<f32>, ef1: Option<ExpectedF1>| match ef1 {
            Some(e) => Rule::ExpectedF1(e),
            None => Rule::Fixed {
                cut: cut(threshold),
                relative: relative.filter(|r| *r > 0.0 && *r <= 1.0),
            },
        };
        Ok(Model {
            first,
            second,
            cut: cut(file.threshold),
            rule: rule(file.threshold, file.relative, file.expected_f1),
            prune: match file.prune {
                None => None,
                Some(c) => Some(Prune {
                    rule: rule(c.threshold, c.relative, c.expected_f1),
                    trees: c.trees.unwrap_or(usize::MAX),
                    own: (c.model.as_ref())
                        .map(|m| Ensemble::build(m.bias, &m.trees, features::N))
                        .transpose()
                        .map_err(|(i, why)| ModelError::PruneTree(i, why))?,
                }),
            },
            settle: file.settle,
        })
    }

    /// The first stage's raw score (log-odds) of one row.
    pub fn score(&self, row: &[f32; features::N]) -> f32 {
        self.first.score_with(row, usize::MAX)
    }

    /// Whether a row is content, judged alone by the first stage (the
    /// page's cut is not applied).
    pub fn decide(&self, row: &[f32; features::N]) -> bool {
        self.score(row) >= self.cut
    }

    /// Which of a page's blocks are content. The first stage scores every
    /// row; the second, when the file has one, scores them again with the
    /// first stage's probabilities around each block (`context`, read from
    /// `layout`). The cut is the page's (see `Rule`): a page's content is
    /// what it has that looks most like content, not nothing.
    pub fn decide_all(&self, rows: &[[f32; features::N]], layout: &features::Layout) -> Vec<bool> {
        let scores = self.score_all(rows, layout);
        let words = rows.iter().map(words);
        let cut = page_cut(self.rule, &scores, words);
        scores.iter().map(|&s| s >= cut).collect()
    }

    /// The final raw score of every block of a page: the second stage's
    /// where the file has one, else the first stage's.
    pub fn score_all(&self, rows: &[[f32; features::N]], layout: &features::Layout) -> Vec<f32> {
        let first = match self.settle {
            Some(e) => self.first.score_settling(rows, e.trees, e.margin),
            None => self.first.score_first(rows, usize::MAX),
        };
        let Some(second) = &self.second else {
            return first;
        };
        let probs: Vec<f32> = first.iter().map(|&s| sigmoid(s)).collect();
        second.score_first(&context::rows(rows, layout, &probs), usize::MAX)
    }

    /// Whether the file has a second stage.
    pub fn stacked(&self) -> bool {
        self.second.is_some()
    }

    /// Whether the file gave a prune cut (`prune` answers `None` without one).
    pub fn prunes(&self) -> bool {
        self.prune.is_some()
    }

    /// Which of the blocks `among` are content, at the prune cut; `rows` are
    /// the rows of those blocks alone, in order (`features::rows_of`): the
    /// walks are most of the model's cost, and the plateau's blocks are a
    /// fraction of a page's. The prune's own trees where the file has them,
    /// else the first stage's first trees: the second stage would need every
    /// block's probability. `None` for a model file without a prune cut.
    pub fn prune(&self, rows: &[[f32; features::N]], among: &[bool]) -> Option<Vec<bool>> {
        let p = self.prune.as_ref()?;
        let scores = match &p.own {
            Some(own) => own.score_first(rows, usize::MAX),
            None => self.first.score_first(rows, p.trees),
        };
        let cut = page_cut(p.rule, &scores, rows.iter().map(words));
        let mut scores = scores.into_iter();
        Some(
            among
                .iter()
                .map(|&a| a && scores.next().is_some_and(|s| s >= cut))
                .collect(),
        )
    }
}

/// A row's word count (the row holds `ln(1 + words)`).
fn words(row: &[f32; features::N]) -> f64 {
    (row[features::WORDS] as f64).exp_m1().round().max(0.0)
}

fn sigmoid(s: f32) -> f32 {
    1.0 / (1.0 + (-s).exp())
}

/// The raw-score cut for a page whose blocks scored `scores` (with their
/// word counts `words`) under `rule`.
fn page_cut(rule: Rule, scores: &[f32], words: impl Iterator<Item = f64>) -> f32 {
    match rule {
        Rule::Fixed { cut, relative } => relative_cut(cut, relative, scores),
        Rule::ExpectedF1(e) => {
            let probs = scores.iter().map(|&s| sigmoid(s) as f64);
            let best = context::best_expected_f1(probs.zip(words)) as f32;
            logit(
                (e.gamma * best)
                    .clamp(e.floor, e.ceiling)
                    .clamp(1e-6, 1.0 - 1e-6),
            )
        }
    }
}

/// `cut`, or lower where the page's most likely block is below `cut / relative`.
fn relative_cut(cut: f32, relative: Option<f32>, scores: &[f32]) -> f32 {
    let Some(r) = relative else {
        return cut;
    };
    let best = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if best == f32::NEG_INFINITY {
        return cut;
    }
    let p = (r / (1.0 + (-best).exp())).clamp(1e-6, 1.0 - 1e-6);
    cut.min(logit(p))
}

fn logit(p: f32) -> f32 {
    (p / (1.0 - p)).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` rows of features spread over `[-span / 5, span * 4 / 5)`, from `seed` (xorshift).
    fn random_rows(n: usize, seed: u64, span: f32) -> Vec<[f32; features::N]> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                let mut r = [0f32; features::N];
                for v in r.iter_mut() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *v = ((x % 1000) as f32 / 1000.0 - 0.2) * span;
                }
                r
            })
            .collect()
    }

    #[test]
    fn the_shipped_model_loads() {
        Model::parse(SHIPPED).unwrap();
    }

    #[test]
    fn batched_scores_are_the_single_ones() {
        let m = Model::parse(SHIPPED).unwrap();
        // 25 groups of eight, one of four, three alone: every way through.
        let rows = random_rows(207, 7, 5.0);
        let single: Vec<f32> = rows.iter().map(|r| m.score(r)).collect();
        assert_eq!(m.first.score_first(&rows, usize::MAX), single);
        // The second stage's batches too, on rows that go both ways.
        let second = m.second.as_ref().expect("the shipped model is stacked");
        let joined: Vec<[f32; context::ROW]> = rows
            .iter()
            .map(|r| {
                let mut j = [0f32; context::ROW];
                j[..features::N].copy_from_slice(r);
                j[features::N..].fill(r[0].abs().min(1.0));
                j
            })
            .collect();
        let single: Vec<f32> = joined
            .iter()
            .map(|r| second.score_with(r, usize::MAX))
            .collect();
        assert_eq!(second.score_first(&joined, usize::MAX), single);
        let decided: Vec<bool> = rows.iter().map(|r| m.decide(r)).collect();
        assert!(decided.iter().any(|&b| b) && decided.iter().any(|&b| !b));
    }

    #[test]
    fn settled_rows_keep_their_early_score_and_the_rest_walk_on() {
        let m = Model::parse(SHIPPED).unwrap();
        let rows = random_rows(101, 11, 10.0);
        let early = m.first.score_first(&rows, 50);
        let full = m.first.score_first(&rows, usize::MAX);
        let mut sorted: Vec<f32> = early.iter().map(|s| s.abs()).collect();
        sorted.sort_by(f32::total_cmp);
        let margin = sorted[sorted.len() / 2];
        let got = m.first.score_settling(&rows, 50, margin);
        let settled = (0..rows.len()).filter(|&i| early[i].abs() > margin).count();
        assert!(settled > 10 && settled < rows.len() - 10, "{settled}");
        for i in 0..rows.len() {
            if early[i].abs() > margin {
                assert_eq!(got[i], early[i]);
            } else {
                assert!((got[i] - full[i]).abs() < 1e-4, "{} {}", got[i], full[i]);
            }
        }
    }

    #[test]
    fn a_settle_without_trees_or_margin_is_refused() {
        for bad in [(0, 2.0), (50, 0.0), (50, -1.0)] {
            let mut file: serde_json::Value = serde_json::from_str(SHIPPED).unwrap();
            file["settle"] = serde_json::json!({"trees": bad.0, "margin": bad.1});
            let json = file.to_string();
            assert!(
                matches!(Model::parse(&json), Err(ModelError::Settle)),
                "{bad:?}"
            );
        }
    }

    /// A layout of `n` blocks, each its own template, the page its region.
    fn flat(n: usize) -> features::Layout {
        features::Layout {
            words: vec![1; n],
            template: (0..n as u32).collect(),
            regions: vec![[(0, n); 3]; n],
            kind: Default::default(),
        }
    }

    #[test]
    fn the_second_stage_reads_the_first_stages_probabilities_around_a_block() {
        let next = features::N + context::NAMES.iter().position(|n| *n == "p_next1").unwrap();
        let names = serde_json::to_string(&context::NAMES).unwrap();
        let second = format!(
            r#""second":{{"features":{names},"bias":0,"trees":[{{"feature":[{next},-1,-1],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],"value":[0,-3,3]}}]}},"#
        );
        let sure = TREE.replace("-0.5]", "3]");
        let file = one_split(0.5, &second).replace(TREE, &sure);
        let m = Model::parse(&file).unwrap();
        assert!(m.stacked());
        // First stage: p .12, .95, .12. Second: content where the next block is likely.
        let mut rows = vec![[0f32; features::N]; 3];
        rows[1][0] = 1.0;
        assert_eq!(m.decide_all(&rows, &flat(3)), [true, false, false]);
        assert!(
            m.decide(&rows[1]),
            "a block judged alone reads the first stage"
        );
        // A second stage trained on other context features is refused.
        let other = file.replace(r#""p_next1""#, r#""p_next""#);
        assert!(matches!(
            Model::parse(&other),
            Err(ModelError::Context { .. })
        ));
        let beyond = file.replace(
            &format!("[{next},-1,-1]"),
            &format!("[{},-1,-1]", context::ROW),
        );
        assert!(matches!(Model::parse(&beyond), Err(ModelError::Tree(0, _))));
    }

    /// One split on feature 0: raw score -2 (p .12) at most 0.5, -0.5 (p .38) above.
    const TREE: &str = r#"{"feature":[0,-1,-1],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],"value":[0,-2,-0.5]}"#;

    /// A model file of `TREE` with the cut `threshold` and the fields `more`
    /// (each followed by a comma).
    fn one_split(threshold: f32, more: &str) -> String {
        let names = serde_json::to_string(&features::names()).unwrap();
        format!(
            r#"{{"format":1,"features":{names},"bias":0,"threshold":{threshold},{more}"trees":[{TREE}]}}"#
        )
    }

    #[test]
    fn an_unsure_page_keeps_its_most_likely_blocks() {
        let tree = TREE;
        let file = |relative: &str| one_split(0.5, relative);
        let mut rows = vec![[0f32; features::N]; 3];
        rows[1][0] = 1.0;
        let absolute = Model::parse(&file("")).unwrap();
        assert_eq!(
            absolute.decide_all(&rows, &flat(rows.len())),
            [false, false, false]
        );
        let relative = Model::parse(&file(r#""relative":0.5,"#)).unwrap();
        assert_eq!(
            relative.decide_all(&rows, &flat(rows.len())),
            [false, true, false]
        );
        // A page with a sure block keeps the model's cut.
        rows[2][0] = 1.0;
        let sure = r#"{"feature":[0,-1,-1],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],"value":[0,-2,3]}"#;
        let m = Model::parse(&file(r#""relative":0.5,"#).replace(tree, sure)).unwrap();
        assert_eq!(m.decide_all(&rows, &flat(rows.len())), [false, true, true]);
    }

    /// Feature 0 at most 0.5: raw -2 (p .12); above, feature 1 at most 0.5:
    /// -0.5 (p .38), above: 3 (p .95).
    const THREE: &str = r#"{"feature":[0,-1,1,-1,-1],"threshold":[0.5,0,0.5,0,0],"left":[1,0,3,0,0],"right":[2,0,4,0,0],"value":[0,-2,0,-0.5,3]}"#;

    /// A row with features 0 and 1 and `words` words.
    fn row(f0: f32, f1: f32, words: f32) -> [f32; features::N] {
        let mut r = [0f32; features::N];
        r[0] = f0;
        r[1] = f1;
        r[features::WORDS] = words.ln_1p();
        r
    }

    #[test]
    fn the_expected_f1_cut_follows_the_page() {
        let file = one_split(
            0.5,
            r#""expected_f1":{"gamma":0.5,"floor":0.1,"ceiling":0.9},"#,
        )
        .replace(TREE, THREE);
        let m = Model::parse(&file).unwrap();
        // Every block unsure: the .38 blocks are the page's content (best
        // expected F1 .54, cut .27), though a fixed .5 would keep nothing.
        let unsure = [
            row(1.0, 0.0, 10.0),
            row(1.0, 0.0, 10.0),
            row(1.0, 0.0, 10.0),
            row(0.0, 0.0, 10.0),
        ];
        assert_eq!(
            m.decide_all(&unsure, &flat(unsure.len())),
            [true, true, true, false]
        );
        // Beside a sure article body the same .38 block is cut (expected F1 .96, cut .48).
        let sure = [
            row(1.0, 1.0, 100.0),
            row(1.0, 1.0, 100.0),
            row(1.0, 0.0, 10.0),
            row(0.0, 0.0, 10.0),
        ];
        assert_eq!(
            m.decide_all(&sure, &flat(sure.len())),
            [true, true, false, false]
        );
        // The bounds hold: a floor of .4 cuts the unsure page's blocks too.
        let floor = Model::parse(&file.replace(r#""floor":0.1"#, r#""floor":0.4"#)).unwrap();
        assert_eq!(floor.decide_all(&unsure, &flat(unsure.len())), [false; 4]);
        // A block judged alone is cut at the threshold.
        assert!(!m.decide(&unsure[0]) && m.decide(&sure[0]));
        assert!(m.decide_all(&[], &flat(0)).is_empty());
    }

    #[test]
    fn an_expected_f1_rule_out_of_range_is_refused() {
        for bad in [
            r#""gamma":0,"floor":0.1,"ceiling":0.9"#,
            r#""gamma":0.5,"floor":0.6,"ceiling":0.5"#,
            r#""gamma":0.5,"floor":0.1,"ceiling":1.5"#,
        ] {
            let top = one_split(0.5, &format!(r#""expected_f1":{{{bad}}},"#));
            let prune = one_split(
                0.5,
                &format!(r#""prune":{{"threshold":0.5,"expected_f1":{{{bad}}}}},"#),
            );
            for file in [top, prune] {
                assert!(
                    matches!(Model::parse(&file), Err(ModelError::ExpectedF1)),
                    "{file}"
                );
            }
        }
    }

    #[test]
    fn the_prune_cut_judges_the_blocks_it_is_given() {
        let tree = TREE;
        let file = |prune: &str| one_split(0.9, prune);
        // Blocks 0 and 2 of three are the plateau's; their rows alone are given.
        let among = [true, false, true];
        let mut rows = vec![[0f32; features::N]; 2];
        rows[0][0] = 1.0;
        assert_eq!(Model::parse(&file("")).unwrap().prune(&rows, &among), None);
        let m = Model::parse(&file(r#""prune":{"threshold":0.3},"#)).unwrap();
        assert_eq!(m.prune(&rows, &among), Some(vec![true, false, false]));
        // Its relative cut: at most half the best block's .38.
        let m = Model::parse(&file(r#""prune":{"threshold":0.5,"relative":0.5},"#)).unwrap();
        assert_eq!(m.prune(&rows, &among), Some(vec![true, false, false]));
        let m = Model::parse(&file(r#""prune":{"threshold":0.5,"relative":0.2},"#)).unwrap();
        assert_eq!(m.prune(&rows, &among), Some(vec![true, false, true]));
        // The model's own cut (.9) is not the prune cut.
        assert_eq!(m.decide_all(&rows, &flat(rows.len())), [false, false]);
        // A second tree that makes every block sure: counted unless the
        // prune cut reads the first tree alone.
        let two = file(r#""prune":{"threshold":0.3},"#).replace(
            &format!("[{tree}]"),
            &format!(
                r#"[{tree},{{"feature":[-1],"threshold":[0],"left":[0],"right":[0],"value":[5]}}]"#
            ),
        );
        let all = Model::parse(&two).unwrap();
        assert_eq!(all.prune(&rows, &among), Some(vec![true, false, true]));
        let first =
            Model::parse(&two.replace(r#""threshold":0.3}"#, r#""threshold":0.3,"trees":1}"#))
                .unwrap();
        assert_eq!(first.prune(&rows, &among), Some(vec![true, false, false]));
        assert_eq!(first.decide_all(&rows, &flat(rows.len())), [true, true]);
    }

    #[test]
    fn the_prune_reads_its_own_trees_where_the_file_has_them() {
        let file = |prune: &str| one_split(0.9, prune);
        let among = [true, false, true];
        let mut rows = vec![[0f32; features::N]; 2];
        rows[0][0] = 1.0;
        // Without its own trees, the first stage's tree keeps block 0 alone.
        let shared = Model::parse(&file(r#""prune":{"threshold":0.3},"#)).unwrap();
        assert_eq!(shared.prune(&rows, &among), Some(vec![true, false, false]));
        // Its own tree reads feature 1, high only in the second row.
        rows[1][1] = 1.0;
        let own = r#""prune":{"threshold":0.3,"trees":1,"model":{"bias":0,"trees":[{"feature":[1,-1,-1],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],"value":[0,-3,3]}]}},"#;
        let m = Model::parse(&file(own)).unwrap();
        assert_eq!(m.prune(&rows, &among), Some(vec![false, false, true]));
        // The first stage is not what it changes.
        assert_eq!(
            m.decide_all(&rows, &flat(2)),
            shared.decide_all(&rows, &flat(2))
        );
        // A malformed tree of its own is refused, named as the prune's.
        let bad = own.replace("[1,-1,-1]", "[1,-1]");
        let err = Model::parse(&file(&bad)).unwrap_err().to_string();
        assert!(err.contains("of the prune's own"), "{err}");
    }

    #[test]
    fn malformed_trees_are_refused() {
        let names = serde_json::to_string(&features::names()).unwrap();
        let file = |tree: &str| {
            format!(
                r#"{{"format":1,"features":{names},"bias":0,"threshold":0.5,"trees":[{tree}]}}"#
            )
        };
        let ok = r#"{"feature":[0,-1,-1],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],"value":[0,-1,1]}"#;
        let stump = r#"{"feature":[-1],"threshold":[0],"left":[0],"right":[0],"value":[-2]}"#;
        let only_leaves = Model::parse(&file(stump)).unwrap();
        assert!(
            !only_leaves.decide(&[0f32; features::N]),
            "a one-leaf tree adds its value"
        );
        let m = Model::parse(&file(ok)).unwrap();
        let mut row = [0f32; features::N];
        assert!(!m.decide(&row));
        row[0] = 1.0;
        assert!(m.decide(&row));
        let cycle = r#"{"feature":[0,-1,-1],"threshold":[0.5,0,0],"left":[0,0,0],"right":[2,0,0],"value":[0,-1,1]}"#;
        assert!(Model::parse(&file(cycle)).is_err());
        let range = r#"{"feature":[9999,-1,-1],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],"value":[0,-1,1]}"#;
        assert!(Model::parse(&file(range)).is_err());
        assert!(Model::parse(
            r#"{"format":1,"features":["x"],"bias":0,"threshold":0.5,"trees":[]}"#
        )
        .is_err());
    }
}
