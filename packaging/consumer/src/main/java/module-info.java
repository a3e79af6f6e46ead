// SPDX-License-Identifier: Apache-2.0
/** A program that uses jrdma as a module. */
module org.example.consumer {
    requires dev.jrdma;
}
