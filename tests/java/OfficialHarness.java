// Feeds a solver the way the official Topcoder marathon tester does, from its documented
// behaviour: write every line of the input, flush, then read the answer line by line; the
// solver's stdin is closed only at the end, after the answer has been read.
//
// Usage: java OfficialHarness.java INPUT_FILE TIMEOUT_MS COMMAND [ARGS...]
// Prints the answer it read, then "elapsed_ms=T" on stderr. Exit 3 when no answer came.
import java.io.*;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;

public class OfficialHarness {
    public static void main(String[] args) throws Exception {
        List<String> input = Files.readAllLines(Paths.get(args[0]));
        long timeoutMs = Long.parseLong(args[1]);
        List<String> command = Arrays.asList(args).subList(2, args.length);
        Process solver = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedWriter toSolver =
                new BufferedWriter(new OutputStreamWriter(solver.getOutputStream()));
        BufferedReader fromSolver =
                new BufferedReader(new InputStreamReader(solver.getInputStream()));
        for (String line : input) {
            toSolver.write(line);
            toSolver.newLine();
        }
        toSolver.flush();
        long start = System.currentTimeMillis();
        ExecutorService reader = Executors.newSingleThreadExecutor();
        Future<List<String>> answer = reader.submit(() -> {
            List<String> lines = new ArrayList<>();
            String first = fromSolver.readLine();
            if (first == null) return null;
            lines.add(first);
            int count = Integer.parseInt(first.trim());
            for (int i = 0; i < count; i++) {
                String line = fromSolver.readLine();
                if (line == null) break;
                lines.add(line);
            }
            return lines;
        });
        List<String> lines;
        try {
            lines = answer.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            lines = null;
        }
        long elapsed = System.currentTimeMillis() - start;
        System.err.println("elapsed_ms=" + elapsed);
        // Only now, as the official tester's end(), is the solver's stdin closed.
        toSolver.close();
        solver.destroyForcibly();
        reader.shutdownNow();
        if (lines == null) {
            System.err.println("no answer");
            System.exit(3);
        }
        for (String line : lines) System.out.println(line);
        System.exit(0);
    }
}
