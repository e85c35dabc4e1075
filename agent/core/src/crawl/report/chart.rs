//! The badness chart: a histogram (log scale) and the CDF of neighborhood
//! badness over [0, 1], the threshold as a vertical line; inline SVG.

use std::fmt::Write;

/// Histogram (bars, log scale) and CDF (line) of badness over [0, 1], with
/// the threshold as a vertical line.
pub fn chart(values: &[f64], threshold: f64) -> String {
    let mut bins = [0u64; BINS];
    for &v in values {
        bins[((v.clamp(0.0, 1.0) * BINS as f64) as usize).min(BINS - 1)] += 1;
    }
    let top_level = bins.iter().map(|&c| level(c)).fold(2.0, f64::max).ceil();
    let f = Frame::default();
    let (w, ht) = (f.w, f.ht);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{ht}' viewBox='0 0 {w} {ht}' role=img aria-label='histogram and CDF of neighborhood badness'>"
    );
    f.axes(&mut s, top_level);
    f.bars(&mut s, &bins, top_level);
    f.cdf(&mut s, values);
    f.threshold_and_legend(&mut s, threshold);
    s.push_str("</svg>");
    s
}

/// The histogram's bins over [0, 1].
const BINS: usize = 20;

/// Log scale where a count of 1 still shows: height ∝ log10(count) + 1.
fn level(c: u64) -> f64 {
    if c == 0 {
        0.0
    } else {
        (c as f64).log10() + 1.0
    }
}

/// The chart's geometry: its size, margins and plot area.
struct Frame {
    w: f64,
    ht: f64,
    left: f64,
    top: f64,
    /// The plot area's width and height.
    pw: f64,
    ph: f64,
}

impl Default for Frame {
    fn default() -> Self {
        let (w, ht, left, right, top, bottom) = (900.0, 340.0, 60.0, 60.0, 20.0, 50.0);
        Frame {
            w,
            ht,
            left,
            top,
            pw: w - left - right,
            ph: ht - top - bottom,
        }
    }
}

impl Frame {
    /// Where badness `v` stands on the x axis.
    fn x(&self, v: f64) -> f64 {
        self.left + v * self.pw
    }

    fn axes(&self, s: &mut String, top_level: f64) {
        let Frame {
            w,
            ht,
            left,
            top,
            pw,
            ph,
        } = *self;
        let x = |v: f64| self.x(v);
        let _ = write!(
        s,
        "<line x1='{left}' y1='{0}' x2='{1}' y2='{0}' stroke='#444'/><line x1='{left}' y1='{top}' x2='{left}' y2='{0}' stroke='#444'/><line x1='{1}' y1='{top}' x2='{1}' y2='{0}' stroke='#444'/>",
        top + ph,
        left + pw
    );
        for i in 0..=10 {
            let v = i as f64 / 10.0;
            let _ = write!(
                s,
                "<text x='{:.1}' y='{:.1}' font-size='11' text-anchor='middle'>{v:.1}</text>",
                x(v),
                top + ph + 16.0
            );
        }
        let _ = write!(
        s,
        "<text x='{:.1}' y='{:.1}' font-size='12' text-anchor='middle'>badness (mean contains of the neighborhood's pages)</text>",
        left + pw / 2.0,
        ht - 10.0
    );
        for d in 0..top_level as u32 {
            let y = top + ph - ((d + 1) as f64 / top_level) * ph;
            let _ = write!(
            s,
            "<text x='{:.1}' y='{:.1}' font-size='11' text-anchor='end'>{}</text><line x1='{:.1}' y1='{y:.1}' x2='{left}' y2='{y:.1}' stroke='#444'/>",
            left - 6.0,
            y + 4.0,
            10u64.pow(d),
            left - 4.0
        );
        }
        let _ = write!(
        s,
        "<text transform='translate(14,{:.1}) rotate(-90)' font-size='12' text-anchor='middle'>neighborhoods (log scale)</text>",
        top + ph / 2.0
    );
        for i in 0..=4 {
            let f = i as f64 / 4.0;
            let _ = write!(
                s,
                "<text x='{:.1}' y='{:.1}' font-size='11'>{f:.2}</text>",
                left + pw + 6.0,
                top + ph - f * ph + 4.0
            );
        }
        let _ = write!(
        s,
        "<text transform='translate({:.1},{:.1}) rotate(90)' font-size='12' text-anchor='middle'>CDF</text>",
        w - 12.0,
        top + ph / 2.0
    );
    }

    fn bars(&self, s: &mut String, bins: &[u64; BINS], top_level: f64) {
        let Frame {
            left, top, pw, ph, ..
        } = *self;
        let bw = pw / BINS as f64;
        for (i, &c) in bins.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let hgt = level(c) / top_level * ph;
            let _ = write!(
            s,
            "<rect x='{:.1}' y='{:.1}' width='{:.1}' height='{:.1}' fill='#6b8fc7'><title>{:.2}–{:.2}: {c}</title></rect>",
            left + i as f64 * bw + 1.0,
            top + ph - hgt,
            bw - 2.0,
            hgt,
            i as f64 / BINS as f64,
            (i + 1) as f64 / BINS as f64
        );
        }
    }

    fn cdf(&self, s: &mut String, values: &[f64]) {
        let Frame { top, ph, .. } = *self;
        let x = |v: f64| self.x(v);
        if !values.is_empty() {
            let mut sorted = values.to_vec();
            sorted.sort_by(f64::total_cmp);
            let n = sorted.len() as f64;
            let mut path = format!("M{:.1},{:.1}", x(0.0), top + ph);
            for (i, v) in sorted.iter().enumerate() {
                let y0 = top + ph - (i as f64 / n) * ph;
                let y1 = top + ph - ((i + 1) as f64 / n) * ph;
                let _ = write!(path, " L{:.1},{:.1} L{:.1},{:.1}", x(*v), y0, x(*v), y1);
            }
            let _ = write!(path, " L{:.1},{:.1}", x(1.0), top);
            let _ = write!(
                s,
                "<path d='{path}' fill='none' stroke='#e07b00' stroke-width='2'/>"
            );
        }
    }

    fn threshold_and_legend(&self, s: &mut String, threshold: f64) {
        let Frame {
            left, top, pw, ph, ..
        } = *self;
        // Threshold.
        let tx = self.x(threshold.clamp(0.0, 1.0));
        let _ = write!(
        s,
        "<line x1='{tx:.1}' y1='{top}' x2='{tx:.1}' y2='{:.1}' stroke='#b00020' stroke-width='2' stroke-dasharray='6 4'/><text x='{:.1}' y='{:.1}' font-size='12' fill='#b00020'>threshold {threshold:.3}</text>",
        top + ph,
        tx + 5.0,
        top + 14.0
    );
        // Legend.
        let _ = write!(
        s,
        "<rect x='{0:.1}' y='{1:.1}' width='12' height='12' fill='#6b8fc7'/><text x='{2:.1}' y='{3:.1}' font-size='12'>neighborhoods per badness bin</text>\
         <line x1='{0:.1}' y1='{4:.1}' x2='{5:.1}' y2='{4:.1}' stroke='#e07b00' stroke-width='2'/><text x='{2:.1}' y='{6:.1}' font-size='12'>CDF</text>",
        left + pw * 0.6,
        top + ph * 0.45,
        left + pw * 0.6 + 18.0,
        top + ph * 0.45 + 10.0,
        top + ph * 0.45 + 26.0,
        left + pw * 0.6 + 12.0,
        top + ph * 0.45 + 30.0
    );
    }
}
