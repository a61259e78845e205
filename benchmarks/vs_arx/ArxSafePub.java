/*
 * veil benchmark driver for ARX's SafePub (EDDifferentialPrivacy, data-dependent: ARX's
 * DataDependentEDDPAlgorithm), written for veil's side-by-side benchmark (benchmarks/vs_arx/safepub.py).
 * It only calls ARX's public API.
 *
 * Usage
 *   ArxSafePub ADULT_DIR CSV RUNS EPSILON DELTA SEARCH_EPSILON STEPS OUT_DIR
 *
 * Every column of CSV (';'-separated, header first) is a quasi-identifier with its hierarchy
 * ADULT_DIR/adult_hierarchy_NAME.csv, as in ARX's own SafePub tests
 * (TestAnonymizationDifferentialPrivacy, createDataDependentConfiguration): suppression limit 1,
 * Metric.createLossMetric(), new EDDifferentialPrivacy(EPSILON, DELTA) (data-dependent, not
 * deterministic: SecureRandom), setDPSearchBudget(SEARCH_EPSILON) (an absolute epsilon, taken out
 * of EPSILON), setHeuristicSearchStepLimit(STEPS, EXPANSIONS).
 *
 * Each run anonymizes from the parsed rows in memory (a fresh Data and configuration: a new sample),
 * writes ARX's released table to OUT_DIR/arx-RUN.csv (';'-separated; unsampled records and classes
 * under k are suppressed, '*' in every column) and prints one JSON line: the seconds of Data.create,
 * the definitions, anonymize and getOutput with every row read; ARX's own search time; the node
 * released; ARX's score of it (getHighestScore: the score the exponential mechanism used); k and beta.
 */

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXConfiguration.SearchStepSemantics;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.EDDifferentialPrivacy;
import org.deidentifier.arx.metric.Metric;

public class ArxSafePub {

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: ArxSafePub ADULT_DIR CSV RUNS EPSILON DELTA SEARCH_EPSILON STEPS OUT_DIR");
            System.exit(2);
        }
        File adult = new File(args[0]);
        List<String[]> rows = ArxBench.read(args[1]);
        int runs = Integer.parseInt(args[2]);
        double epsilon = Double.parseDouble(args[3]);
        double delta = Double.parseDouble(args[4]);
        double searchEpsilon = Double.parseDouble(args[5]);
        int steps = Integer.parseInt(args[6]);
        File outDir = new File(args[7]);
        String[] names = rows.get(0);
        Hierarchy[] hierarchies = new Hierarchy[names.length];
        for (int i = 0; i < names.length; i++) {
            hierarchies[i] = Hierarchy.create(new File(adult, "adult_hierarchy_" + names[i] + ".csv"),
                                              StandardCharsets.UTF_8, ';');
        }
        for (int run = 0; run < runs; run++) {
            long start = System.nanoTime();
            Data data = Data.create(rows);
            for (int i = 0; i < names.length; i++) {
                data.getDefinition().setAttributeType(names[i], hierarchies[i]);
            }
            EDDifferentialPrivacy model = new EDDifferentialPrivacy(epsilon, delta);
            ARXConfiguration config = ARXConfiguration.create(1d, Metric.createLossMetric());
            config.addPrivacyModel(model);
            config.setDPSearchBudget(searchEpsilon);
            config.setHeuristicSearchStepLimit(steps, SearchStepSemantics.EXPANSIONS);
            ARXResult result = new ARXAnonymizer().anonymize(data, config);
            DataHandle output = result.getOutput();
            long cells = 0;
            Iterator<String[]> released = output.iterator();
            while (released.hasNext()) {
                cells += released.next().length;
            }
            long nanos = System.nanoTime() - start;
            output.save(new File(outDir, "arx-" + run + ".csv"), ';');
            ARXNode node = result.getGlobalOptimum();
            StringBuilder levels = new StringBuilder();
            for (int i = 0; i < names.length; i++) {
                levels.append(i == 0 ? "" : ", ").append(node.getGeneralization(names[i]));
            }
            System.out.println(String.format(Locale.ROOT,
                "{\"run\": %d, \"seconds\": %.6f, \"arx_time_ms\": %d, \"node\": [%s], \"score\": \"%s\", "
                + "\"k\": %d, \"beta\": %.17g, \"cells\": %d}",
                run, nanos / 1e9, result.getTime(), levels, node.getHighestScore(), model.getK(), model.getBeta(), cells));
            System.out.flush();
            output.release();
        }
    }
}
