//! A dense layer whose bias, activation and residual sum are applied in place on the
//! matrix product's output. candle's `Linear` adds the bias through a strided
//! broadcast and each later step allocates a new tensor; with MiniLM's short
//! sequences those element-wise passes cost about as much as the products.

use candle_core::{CpuStorage, Layout, Tensor};

/// The activation between the two feed-forward layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Act {
    /// Exact GELU (`"gelu"`, what MiniLM uses).
    Gelu,
    /// Tanh-approximated GELU (`"gelu_new"`, `"gelu_pytorch_tanh"`).
    GeluTanh,
    /// `"relu"`.
    Relu,
}

/// `x · Wᵀ + b`, then optionally an activation or a residual sum.
pub(crate) struct Dense {
    weight: Tensor,
    bias: Vec<f32>,
}

/// What follows the bias.
#[derive(Clone, Copy)]
pub(crate) enum Then<'a> {
    /// Nothing.
    Bias,
    /// The activation.
    Act(Act),
    /// Adding another tensor of the output's shape (the residual connection).
    Add(&'a Tensor),
}

impl Dense {
    /// `weight` is `[out, in]`, `bias` is `[out]` (shapes checked by the caller).
    pub(crate) fn new(weight: Tensor, bias: &Tensor) -> candle_core::Result<Self> {
        Ok(Self {
            weight,
            bias: bias.to_vec1::<f32>()?,
        })
    }

    /// Applies the layer to `x` of shape `[batch, len, in]`.
    pub(crate) fn forward(&self, x: &Tensor, then: Then<'_>) -> candle_core::Result<Tensor> {
        let (b, l, k) = x.dims3()?;
        let y =
            x.reshape((b * l, k))?
                .matmul(&self.weight.t()?)?
                .reshape((b, l, self.bias.len()))?;
        match then {
            Then::Bias => y.inplace_op1(&Epilogue {
                bias: &self.bias,
                act: None,
            })?,
            Then::Act(act) => y.inplace_op1(&Epilogue {
                bias: &self.bias,
                act: Some(act),
            })?,
            Then::Add(r) => y.inplace_op2(r, &Residual { bias: &self.bias })?,
        }
        Ok(y)
    }
}

fn rows_mut<'s>(
    s: &'s mut CpuStorage,
    l: &Layout,
    width: usize,
) -> candle_core::Result<&'s mut [f32]> {
    let CpuStorage::F32(v) = s else {
        candle_core::bail!("dense layer: expected f32 storage");
    };
    let Some((from, to)) = l.contiguous_offsets() else {
        candle_core::bail!("dense layer: output not contiguous");
    };
    if width == 0 || !(to - from).is_multiple_of(width) {
        candle_core::bail!("dense layer: output width is not the bias length");
    }
    Ok(&mut v[from..to])
}

struct Epilogue<'a> {
    bias: &'a [f32],
    act: Option<Act>,
}

impl candle_core::InplaceOp1 for Epilogue<'_> {
    fn name(&self) -> &'static str {
        "bias-act"
    }

    fn cpu_fwd(&self, s: &mut CpuStorage, l: &Layout) -> candle_core::Result<()> {
        let y = rows_mut(s, l, self.bias.len())?;
        for row in y.chunks_exact_mut(self.bias.len()) {
            for (v, b) in row.iter_mut().zip(self.bias) {
                *v += b;
            }
            match self.act {
                None => {}
                Some(Act::Gelu) => row.iter_mut().for_each(|v| *v = gelu_erf(*v)),
                Some(Act::GeluTanh) => row.iter_mut().for_each(|v| *v = gelu_tanh(*v)),
                Some(Act::Relu) => row.iter_mut().for_each(|v| *v = v.max(0.0)),
            }
        }
        Ok(())
    }
}

struct Residual<'a> {
    bias: &'a [f32],
}

impl candle_core::InplaceOp2 for Residual<'_> {
    fn name(&self) -> &'static str {
        "bias-residual"
    }

    fn cpu_fwd(
        &self,
        s1: &mut CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> candle_core::Result<()> {
        let y = rows_mut(s1, l1, self.bias.len())?;
        let CpuStorage::F32(r) = s2 else {
            candle_core::bail!("dense layer: expected an f32 residual");
        };
        let r = match l2.contiguous_offsets() {
            Some((from, to)) if to - from == y.len() && l2.dims() == l1.dims() => &r[from..to],
            _ => candle_core::bail!("dense layer: residual of another shape or not contiguous"),
        };
        for (row, rrow) in y
            .chunks_exact_mut(self.bias.len())
            .zip(r.chunks_exact(self.bias.len()))
        {
            for ((v, b), x) in row.iter_mut().zip(self.bias).zip(rrow) {
                *v += b + x;
            }
        }
        Ok(())
    }
}

/// `exp(y)` for `y ≤ 0` without a library call, so loops over it vectorise: Cody–Waite
/// reduction to `r ∈ [-ln2/2, ln2/2]`, a degree-7 Taylor polynomial (relative error
/// below 1e-8 before rounding), and the power of two built in the exponent bits.
/// Below -87 it returns 0 (the true value is under f32's normal range).
#[inline]
fn exp_nonpositive(y: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let y = y.max(-87.0);
    let n = (y * std::f32::consts::LOG2_E).round();
    let r = (y - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r / 5040.0))))));
    // n ∈ [-126, 0]: 2^n is a normal f32.
    let two_n = f32::from_bits(((n as i32 + 127) as u32) << 23);
    p * two_n
}

/// `erfc(z)` for `z ≥ 0` (Numerical Recipes' Chebyshev fit; fractional error below
/// 1.2e-7 for every z).
#[inline]
fn erfc_nonneg(z: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_2
        + t * (1.000_023_7
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_204
                                + t * (1.488_515_9 + t * (-0.822_152_2 + t * 0.170_872_77))))))));
    t * exp_nonpositive(poly)
}

/// Exact GELU, `x·Φ(x)` with `Φ(x) = erfc(-x/√2)/2` (torch's `gelu`, approximate="none").
#[inline]
pub(crate) fn gelu_erf(x: f32) -> f32 {
    let e = 0.5 * erfc_nonneg(x.abs() * std::f32::consts::FRAC_1_SQRT_2);
    x * if x >= 0.0 { 1.0 - e } else { e }
}

/// Tanh-approximated GELU (`gelu_new`).
#[inline]
fn gelu_tanh(x: f32) -> f32 {
    let inner = (2.0 / std::f32::consts::PI).sqrt() * (x + 0.044_715 * x * x * x);
    0.5 * x * (1.0 + inner.tanh())
}

#[cfg(test)]
mod tests {
    use super::{exp_nonpositive, gelu_erf};

    #[test]
    fn fast_exp_and_gelu_match_the_library_functions() {
        // candle's own exact GELU in f64 is the reference.
        let xs: Vec<f64> = (0..=200_000)
            .map(|i| f64::from((-12.0 + 24.0 * f64::from(i) / 200_000.0) as f32))
            .collect();
        let want_gelu = candle_core::Tensor::new(xs.as_slice(), &candle_core::Device::Cpu)
            .and_then(|t| t.gelu_erf())
            .and_then(|t| t.to_vec1::<f64>())
            .expect("candle gelu");
        let mut worst_exp = 0.0f64;
        let mut worst_gelu = 0.0f64;
        for i in 0..=200_000 {
            let y = -87.0 + 87.0 * f64::from(i) / 200_000.0;
            let got = f64::from(exp_nonpositive(y as f32));
            let want = (y as f32 as f64).exp();
            worst_exp = worst_exp.max((got - want).abs() / want);
            let x32 = xs[i as usize] as f32;
            let want = want_gelu[i as usize];
            let got = f64::from(gelu_erf(x32));
            // Absolute error scaled to the input: what a product with the next layer sees.
            worst_gelu = worst_gelu.max((got - want).abs() / f64::from(x32).abs().max(1.0));
        }
        assert!(worst_exp < 5e-7, "exp relative error {worst_exp}");
        assert!(worst_gelu < 5e-7, "gelu error {worst_gelu}");
        assert_eq!(exp_nonpositive(-1000.0), exp_nonpositive(-87.0));
        assert!(gelu_erf(-30.0).abs() < 1e-30 && gelu_erf(30.0) == 30.0);
    }
}
