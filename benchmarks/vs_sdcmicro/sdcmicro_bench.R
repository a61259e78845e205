# veil's driver for sdcMicro (benchmarks/vs_sdcmicro): one task per call, results as JSON lines on stdout.
#   Rscript sdcmicro_bench.R TASK CSV SEP KEYS [WEIGHT] [HOUSEHOLD]
# TASK: risk (freqCalc + indivRisk per record), measure (measure_risk: global ER, household risk),
#       suda2 (per record scores), localsupp (localSuppression k=5)
# Times are CPU seconds of the task alone (proc.time), reading the CSV excluded.
suppressMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
task <- args[1]; path <- args[2]; sep <- args[3]; keys <- strsplit(args[4], ",")[[1]]
weight <- if (length(args) >= 5 && nzchar(args[5])) args[5] else NULL
household <- if (length(args) >= 6 && nzchar(args[6])) args[6] else NULL
data <- read.csv(path, sep = sep, stringsAsFactors = TRUE, check.names = FALSE)
# localSuppression builds R expressions from the key names: a '-' (Adult's marital-status) must go
names(data) <- gsub("-", "_", names(data)); keys <- gsub("-", "_", keys)
for (k in keys) data[[k]] <- as.factor(data[[k]])
cpu <- function(expr) { t0 <- proc.time(); force(expr); t1 <- proc.time(); unname((t1 - t0)[1] + (t1 - t0)[2]) }
emit <- function(name, values) cat(name, paste(format(values, digits = 15), collapse = ","), "\n", sep = "\t")
if (task == "risk") {
  t <- cpu({ f <- freqCalc(data, keyVars = keys, w = weight); r <- indivRisk(f) })
  emit("seconds", t); emit("fk", f$fk); emit("Fk", f$Fk); emit("rk", r$rk)
} else if (task == "measure") {
  t <- cpu(m <- measure_risk(data, keyVars = keys, w = weight, hid = household))
  emit("seconds", t); emit("er", m$global_risk_ER); emit("hier_er", m$hier_risk_ER)
  emit("hier", m$Res[, 4])
} else if (task == "suda2") {
  t <- cpu(s <- suda2(data, variables = keys))
  emit("seconds", t); emit("score", s$score); emit("dis", s$disScore)
  emit("contribution", s$attribute_contributions$contribution)
} else if (task == "localsupp") {
  t <- cpu(ls <- localSuppression(data, keyVars = keys, k = 5))
  emit("seconds", t)
  emit("cells", sapply(keys, function(k) sum(is.na(ls$xAnon[[k]])) - sum(is.na(data[[k]]))))
}
