package bot;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;

/**
 * A small test runner, so the kit needs nothing beyond the JDK: runs every public static method whose name starts
 * with "test" in the classes named on the command line (default: ClientTest), prints each failure and a count,
 * and exits 1 when any failed. test.sh runs it.
 */
public final class TestRunner {
    private TestRunner() {}

    public static void main(String[] args) throws ClassNotFoundException, IllegalAccessException {
        String[] classes = args.length > 0 ? args : new String[] {"bot.ClientTest"};
        int run = 0;
        int failed = 0;
        for (String name : classes) {
            Method[] methods = Class.forName(name).getMethods();
            Arrays.sort(methods, Comparator.comparing(Method::getName));
            for (Method method : methods) {
                if (!method.getName().startsWith("test") || !Modifier.isStatic(method.getModifiers())) continue;
                run++;
                try {
                    method.invoke(null);
                } catch (InvocationTargetException error) {
                    failed++;
                    System.out.println("FAIL " + name + "." + method.getName() + ": " + error.getCause());
                }
            }
        }
        System.out.println((run - failed) + " of " + run + " tests passed");
        System.exit(failed == 0 && run > 0 ? 0 : 1);
    }

    /** Fails the test unless the two values are equal. */
    public static void assertEquals(Object expected, Object actual) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError("expected " + expected + ", got " + actual);
        }
    }

    /** Fails the test unless the condition holds. */
    public static void check(boolean condition, String what) {
        if (!condition) throw new AssertionError(what);
    }
}
