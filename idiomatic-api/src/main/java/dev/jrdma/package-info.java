/**
 * The jrdma verbs API (under construction): devices, contexts, protection domains, memory
 * regions, completion queues and queue pairs as typed, AutoCloseable Java objects.
 */
package dev.jrdma;
