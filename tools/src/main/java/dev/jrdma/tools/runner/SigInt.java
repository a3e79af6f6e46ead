// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * SIGINT caught while an instance is open: the signal runs {@code onSignal} (on the JVM's signal
 * thread) instead of ending the process, and {@link #close} gives it back its previous handler.
 * Java has no public API for this; sun.misc.Signal (module jdk.unsupported, exported for exactly
 * this use) is reached by reflection, because javac warns about every direct use of it and the
 * build's javadoc treats warnings as errors. A JVM started with SIGINT ignored (a background job
 * of a non-interactive shell, nohup) keeps ignoring it, as any program does.
 */
final class SigInt implements AutoCloseable {
    private final Object signal;
    private final Object previous;
    private final Method handle;

    private SigInt(Object signal, Object previous, Method handle) {
        this.signal = signal;
        this.previous = previous;
        this.handle = handle;
    }

    /** Starts catching SIGINT. */
    static SigInt catching(Runnable onSignal) {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object signal = signalClass.getConstructor(String.class).newInstance("INT");
            Object handler = Proxy.newProxyInstance(SigInt.class.getClassLoader(), new Class<?>[] {handlerClass},
                    (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "handle" -> onSignal.run();
                            case "hashCode" -> {
                                return System.identityHashCode(proxy);
                            }
                            case "equals" -> {
                                return proxy == args[0];
                            }
                            case "toString" -> {
                                return "SIGINT handler of jrdma";
                            }
                            default -> throw new UnsupportedOperationException(method.getName());
                        }
                        return null;
                    });
            Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            Object previous = handle.invoke(null, signal, handler);
            return new SigInt(signal, previous, handle);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot catch SIGINT: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot catch SIGINT (sun.misc.Signal): " + e, e);
        }
    }

    /** Gives SIGINT back its previous handler (the JVM's: end the process). */
    @Override
    public void close() {
        try {
            handle.invoke(null, signal, previous);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot restore SIGINT's handler: " + e, e);
        }
    }
}
