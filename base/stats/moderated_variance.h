// Empirical-Bayes moderation of variances (Smyth 2004, "Linear models and empirical Bayes methods
// for assessing differential expression in microarray experiments"; R: limma::squeezeVar).
//
// Few replicates estimate a variance badly: five runs give 4 degrees of freedom, and a t-test at a
// strict alpha then needs an effect of many standard errors. When many metrics of one kind are
// measured together, their variances are samples from a common distribution: the model takes each
// true variance sigma_g^2 as scaled inverse chi-square, d0 s0^2 / chi2_d0, and each sample variance
// s_g^2 as sigma_g^2 chi2_dg / dg. fit_prior() estimates (s0^2, d0) from the log sample variances
// by the method of moments (limma's fitFDist); moderate() gives the posterior variance
// (d0 s0^2 + dg s_g^2) / (d0 + dg), with d0 + dg degrees of freedom for a t reference. d0 is small
// when the metrics' variances really differ (little is borrowed) and infinite when their spread is
// no larger than sampling alone explains.
#pragma once

#include <cmath>
#include <span>

namespace rtgate::stats {

struct VariancePrior {
  double s0_sq = NAN;  // prior (typical) variance
  double d0 = 0;       // prior degrees of freedom: 0 = no prior, +inf = s0_sq is taken as known
  bool usable() const { return d0 > 0 && std::isfinite(s0_sq) && s0_sq > 0; }
};

struct VarianceEstimate {
  double var = NAN;  // sample variance
  double df = 0;     // its degrees of freedom (> 0)
};

// Method-of-moments fit over the estimates with var > 0 and df > 0; needs at least 3 of them
// (else d0 = 0). limma: fitFDist(var, df).
VariancePrior fit_prior(std::span<const VarianceEstimate> estimates);

// The posterior variance of one metric, and its degrees of freedom. Without a usable prior it is
// the estimate itself; with d0 = +inf it is s0^2 with infinite df.
VarianceEstimate moderate(const VarianceEstimate& own, const VariancePrior& prior);

// The inverse of the trigamma function, by Newton's method (limma: trigammaInverse).
double trigamma_inverse(double y);

}  // namespace rtgate::stats
