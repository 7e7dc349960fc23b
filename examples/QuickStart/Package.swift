// swift-tools-version:6.0
// QuickStart: a command-line app built on RunAnywhere the way any app would be: the package is a
// dependency (here by path, the repository this example lives in; elsewhere by URL), and nothing
// is set up in the dependency's checkout for it to build. Running it needs the engines and models
// that RunAnywhere's `scripts/setup` installs under $RUNANYWHERE_HOME (see the README's SDK section).
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v15)],
    dependencies: [
        // By URL in an app of your own:
        // .package(url: "https://github.com/<owner>/runanywhere-linux", branch: "main"),
        .package(name: "RunAnywhere", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "QuickStart",
            dependencies: [
                .product(name: "RunAnywhere", package: "RunAnywhere"),
                .product(name: "RunAnywhereLlamaCpp", package: "RunAnywhere"),
                .product(name: "RunAnywhereWhisperCpp", package: "RunAnywhere"),
            ]
        )
    ]
)
