/*
 * veil benchmark driver for ARX (https://arx.deidentifier.org), written for veil's
 * side-by-side benchmark (benchmarks/vs_arx/).  It only calls ARX's public API.
 *
 * Modes
 *   serve ADULT_DIR              read commands from stdin, one per line, answer one JSON line each:
 *                                  anonymize SPEC CSV   time one in-process anonymization
 *                                  risk CSV             time one re-identification risk summary
 *                                  quit
 *   once ADULT_DIR SPEC CSV OUT  whole process: read CSV, anonymize, write OUT (';'-separated), print JSON
 *   risk-once ADULT_DIR CSV      whole process: read CSV, risk summary, print JSON
 *
 * SPEC is a comma-separated list: k=5, s=0.05 (suppression limit), l=2 (distinct l-diversity of
 * salary-class), t=equal:0.2 or t=hierarchical:0.2 (t-closeness of salary-class).
 * A timed run starts from the parsed rows in memory (List<String[]>) and the loaded hierarchies,
 * and covers Data.create, the attribute definitions and ARXAnonymizer.anonymize (ARX encodes
 * the data inside anonymize), as veil's timed run covers Dataset.from_pandas and veil.anonymize().
 * The anonymized table is timed apart ("output_seconds": result.getOutput() and every row read
 * through its iterator), since ARX builds it lazily and veil's anonymize() returns it.
 * Search: ARX's default (Flash for this lattice size); metric: Metric.createLossMetric().
 */

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.risk.RiskModelSampleRisks;
import org.deidentifier.arx.risk.RiskModelSampleUniqueness;

public class ArxBench {

    static final String[] QIS = {"sex", "age", "race", "marital-status", "education",
                                 "native-country", "workclass", "occupation"};
    static final String SENSITIVE = "salary-class";

    final Map<String, Hierarchy> hierarchies = new HashMap<>();
    final Map<String, List<String[]>> tables = new HashMap<>();

    ArxBench(String adultDir) throws IOException {
        for (String name : QIS) {
            hierarchies.put(name, Hierarchy.create(new File(adultDir, "adult_hierarchy_" + name + ".csv"),
                                                   StandardCharsets.UTF_8, ';'));
        }
        hierarchies.put(SENSITIVE, Hierarchy.create(new File(adultDir, "adult_hierarchy_" + SENSITIVE + ".csv"),
                                                    StandardCharsets.UTF_8, ';'));
    }

    /** The rows of a ';'-separated file without quoting (Adult), header first. */
    static List<String[]> read(String path) throws IOException {
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(Paths.get(path), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isEmpty()) {
                    rows.add(line.split(";", -1));
                }
            }
        }
        return rows;
    }

    List<String[]> table(String path) throws IOException {
        List<String[]> rows = tables.get(path);
        if (rows == null) {
            rows = read(path);
            tables.put(path, rows);
        }
        return rows;
    }

    /** ARX refuses a sensitive attribute without a model on it: salary-class is sensitive only with l or t. */
    Data data(List<String[]> rows, boolean withHierarchies, boolean sensitive) {
        Data data = Data.create(rows);
        for (String name : QIS) {
            if (withHierarchies) {
                data.getDefinition().setAttributeType(name, hierarchies.get(name));
            } else {
                data.getDefinition().setAttributeType(name, AttributeType.QUASI_IDENTIFYING_ATTRIBUTE);
            }
        }
        data.getDefinition().setAttributeType(SENSITIVE, sensitive ? AttributeType.SENSITIVE_ATTRIBUTE
                                                                   : AttributeType.INSENSITIVE_ATTRIBUTE);
        return data;
    }

    static boolean usesSensitive(String spec) {
        return spec.contains("l=") || spec.contains("t=");
    }

    ARXConfiguration configuration(String spec) {
        ARXConfiguration config = ARXConfiguration.create();
        double suppression = 0d;
        for (String part : spec.split(",")) {
            String[] kv = part.trim().split("=", 2);
            switch (kv[0]) {
                case "k": config.addPrivacyModel(new KAnonymity(Integer.parseInt(kv[1]))); break;
                case "s": suppression = Double.parseDouble(kv[1]); break;
                case "l": config.addPrivacyModel(new DistinctLDiversity(SENSITIVE, Integer.parseInt(kv[1]))); break;
                case "t": {
                    String[] how = kv[1].split(":", 2);
                    double t = Double.parseDouble(how[1]);
                    if (how[0].equals("equal")) {
                        config.addPrivacyModel(new EqualDistanceTCloseness(SENSITIVE, t));
                    } else if (how[0].equals("hierarchical")) {
                        config.addPrivacyModel(new HierarchicalDistanceTCloseness(SENSITIVE, t,
                                                                                   hierarchies.get(SENSITIVE)));
                    } else {
                        throw new IllegalArgumentException("unknown t-closeness " + how[0]);
                    }
                    break;
                }
                default: throw new IllegalArgumentException("unknown spec part " + part);
            }
        }
        config.setSuppressionLimit(suppression);
        config.setQualityModel(Metric.createLossMetric());
        return config;
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static String describe(ARXResult result, long nanos) {
        StringBuilder out = new StringBuilder();
        out.append("{\"seconds\": ").append(String.format(Locale.ROOT, "%.6f", nanos / 1e9));
        out.append(", \"arx_time_ms\": ").append(result.getTime());
        ARXNode node = result.getGlobalOptimum();
        if (node == null) {
            out.append(", \"node\": null, \"loss\": null");
        } else {
            out.append(", \"node\": {");
            for (int i = 0; i < QIS.length; i++) {
                out.append(i == 0 ? "" : ", ").append(json(QIS[i])).append(": ").append(node.getGeneralization(QIS[i]));
            }
            out.append("}, \"loss\": ").append(json(String.valueOf(node.getHighestScore())));
        }
        int checked = 0;
        for (ARXNode[] level : result.getLattice().getLevels()) {
            for (ARXNode n : level) {
                if (n.isChecked()) {
                    checked++;
                }
            }
        }
        out.append(", \"nodes_checked\": ").append(checked).append("}");
        return out.toString();
    }

    String anonymize(String spec, String csv) throws IOException {
        List<String[]> rows = table(csv);
        long start = System.nanoTime();
        Data data = data(rows, true, usesSensitive(spec));
        ARXResult result = new ARXAnonymizer().anonymize(data, configuration(spec));
        long nanos = System.nanoTime() - start;
        // timed apart: the anonymized table itself (getOutput applies the optimum; every row read
        // as text), the part of the job veil's anonymize() also does and ARX's anonymize leaves lazy
        long outputStart = System.nanoTime();
        long cells = 0;
        DataHandle output = result.getOutput();
        if (output != null) {
            Iterator<String[]> released = output.iterator();
            while (released.hasNext()) {
                cells += released.next().length;
            }
        }
        long outputNanos = System.nanoTime() - outputStart;
        if (output != null) {
            output.release();
        }
        String described = describe(result, nanos);
        return described.substring(0, described.length() - 1)
            + String.format(Locale.ROOT, ", \"output_seconds\": %.6f, \"output_cells\": %d}", outputNanos / 1e9, cells);
    }

    static String riskSummary(DataHandle handle, long start) {
        RiskModelSampleRisks risks = handle.getRiskEstimator().getSampleBasedReidentificationRisk();
        RiskModelSampleUniqueness unique = handle.getRiskEstimator().getSampleBasedUniquenessRisk();
        long nanos = System.nanoTime() - start;
        return String.format(Locale.ROOT,
            "{\"seconds\": %.6f, \"prosecutor_average\": %.9f, \"prosecutor_highest\": %.9f, "
            + "\"records_at_highest\": %.9f, \"journalist\": %.9f, \"marketer\": %.9f, \"unique_fraction\": %.9f}",
            nanos / 1e9, risks.getAverageRisk(), risks.getHighestRisk(), risks.getFractionOfRecordsAffectedByHighestRisk(),
            risks.getEstimatedJournalistRisk(), risks.getEstimatedMarketerRisk(), unique.getFractionOfUniqueRecords());
    }

    String risk(String csv) throws IOException {
        List<String[]> rows = table(csv);
        long start = System.nanoTime();
        Data data = data(rows, false, false);
        return riskSummary(data.getHandle(), start);
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("serve")) {
            ArxBench bench = new ArxBench(args[1]);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] cmd = line.trim().split(" ");
                String answer;
                try {
                    if (cmd[0].equals("quit")) {
                        break;
                    } else if (cmd[0].equals("anonymize")) {
                        answer = bench.anonymize(cmd[1], cmd[2]);
                    } else if (cmd[0].equals("risk")) {
                        answer = bench.risk(cmd[1]);
                    } else {
                        answer = "{\"error\": " + json("unknown command " + cmd[0]) + "}";
                    }
                } catch (Exception e) {
                    answer = "{\"error\": " + json(String.valueOf(e)) + "}";
                }
                System.out.println(answer);
                System.out.flush();
            }
        } else if (args.length == 5 && args[0].equals("once")) {
            long start = System.nanoTime();
            ArxBench bench = new ArxBench(args[1]);
            Data data = bench.data(read(args[3]), true, usesSensitive(args[2]));
            ARXResult result = new ARXAnonymizer().anonymize(data, bench.configuration(args[2]));
            result.getOutput().save(new File(args[4]), ';');
            System.out.println(describe(result, System.nanoTime() - start));
        } else if (args.length == 3 && args[0].equals("risk-once")) {
            long start = System.nanoTime();
            ArxBench bench = new ArxBench(args[1]);
            System.out.println(riskSummary(bench.data(read(args[2]), false, false).getHandle(), start));
        } else {
            System.err.println("usage: ArxBench serve ADULT_DIR | once ADULT_DIR SPEC CSV OUT | risk-once ADULT_DIR CSV");
            System.exit(2);
        }
    }
}
